import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { appliedItemsOf, itemIndexOfKey, rubricMark, toggled } from "../components/marking/rubric-marks";
import { itemKey } from "../components/rubric/rubric-items";

const item = (id: string, points: number, position = 0, question_id = "q") => ({ id, question_id, position, text: id, points, spec_ref: null, comment: null });

describe("rubric items on the marking screen", () => {
  it("a digit applies the item whose key it is (1–9, then 0 for the tenth)", () => {
    for (let index = 0; index < 10; index++) expect(itemIndexOfKey(itemKey(index)!)).toBe(index);
    expect(itemIndexOfKey(".")).toBeNull();
  });

  it("the mark is the sum within 0..max, in hundredths", () => {
    const items = [item("a", 2), item("b", 1.5), item("c", -4), item("d", 0.1), item("e", 0.2)];
    expect(rubricMark(items, ["a", "b"], 3)).toEqual({ sum: 3.5, mark: 3 });
    expect(rubricMark(items, ["a", "c"], 3)).toEqual({ sum: -2, mark: 0 });
    expect(rubricMark(items, ["d", "e"], 3)).toEqual({ sum: 0.3, mark: 0.3 });
    expect(rubricMark(items, [], 3)).toEqual({ sum: 0, mark: 0 });
    expect(rubricMark(items, ["a", "gone"], null)).toEqual({ sum: 2, mark: 2 });
  });

  it("never gives a mark outside 0..max, whatever is applied", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -10_000, max: 10_000 }), { maxLength: 12 }), fc.integer({ min: 0, max: 10_000 }), (points, max) => {
        const items = points.map((hundredths, index) => item(`i${index}`, hundredths / 100));
        const { mark } = rubricMark(items, items.map((i) => i.id), max / 100);
        expect(mark).toBeGreaterThanOrEqual(0);
        expect(mark).toBeLessThanOrEqual(max / 100);
      }),
    );
  });

  it("toggles an item on and off, and reads a recorded detail", () => {
    expect(toggled(["a"], "b")).toEqual(["a", "b"]);
    expect(toggled(["a", "b"], "a")).toEqual(["b"]);
    expect(appliedItemsOf({ type: "rubric", items: ["a", 3, "b"] })).toEqual(["a", "b"]);
    expect(appliedItemsOf({ type: "points", items: ["a"] })).toBeNull();
    expect(appliedItemsOf(null)).toBeNull();
  });
});
