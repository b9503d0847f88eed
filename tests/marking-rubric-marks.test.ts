import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  appliedItemsOf,
  giveNoMarks,
  itemIndexOfKey,
  markHint,
  noMarksKey,
  nothingToConfirm,
  rubricMark,
  rubricMarkText,
  toggleRubricItem,
  toggled,
} from "../components/marking/rubric-marks";
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

describe("what a rubric key changes, and how it is said (issue 33, item 10)", () => {
  const items = [
    { id: "a", text: "Method", points: 1 },
    { id: "b", text: "Answer", points: 2 },
    { id: "c", text: "Slip", points: -1 },
  ];

  it("says an item applied and an item removed alike, with the mark after it", () => {
    const on = toggleRubricItem(items, [], 1, 3)!;
    expect(on).toEqual({ items: ["b"], mark: "2", said: "Item 2 applied: Answer (+2). Mark 2 out of 3.", changed: { itemId: "b", applied: true } });
    const off = toggleRubricItem(items, ["a", "b"], 0, 3)!;
    expect(off).toEqual({ items: ["b"], mark: "2", said: "Item 1 removed: Method (+1). Mark 2 out of 3.", changed: { itemId: "a", applied: false } });
    expect(toggleRubricItem(items, ["c"], 2, null)!.said).toBe("Item 3 removed: Slip (−1). No item is applied: no mark yet.");
    expect(toggleRubricItem(items, [], 5, 3)).toBeNull();
    expect(toggleRubricItem(items, [], null, 3)).toBeNull();
  });

  it("never makes a mark of no item: removing the last one leaves the mark empty", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 2 }), { maxLength: 20 }), (presses) => {
        let applied: string[] = [];
        let mark = "";
        for (const index of presses) ({ items: applied, mark } = toggleRubricItem(items, applied, index, 3)!);
        // Each key pressed an even number of times is off again; the mark is empty exactly when nothing is applied.
        expect(mark === "").toBe(applied.length === 0);
        if (applied.length > 0) expect(mark).toBe(String(rubricMark(items, applied, 3).mark));
        const counts = [0, 1, 2].map((index) => presses.filter((pressed) => pressed === index).length % 2);
        expect(applied.slice().sort()).toEqual(items.filter((_, index) => counts[index] === 1).map((item) => item.id));
      }),
    );
  });

  it("gives no marks on purpose: 0, every item removed and named", () => {
    expect(giveNoMarks(items, ["a", "c"], 3)).toEqual({ items: [], mark: "0", said: "No marks: 0 out of 3. Items 1 and 3 removed.", changed: null });
    expect(giveNoMarks(items, [], null).said).toBe("No marks: 0.");
    expect(noMarksKey(9)).toBe("0");
    expect(noMarksKey(10)).toBeNull();
  });

  it("shows the items' mark, else what was typed or recorded, else nothing", () => {
    expect(rubricMarkText(items, ["a", "b"], 2, "")).toBe("2");
    expect(rubricMarkText(items, [], 3, "")).toBe("");
    expect(rubricMarkText(items, [], 3, "0")).toBe("0");
  });

  it("hints how to make a mark, and says when 0 was given on purpose", () => {
    const hint = (applied: string[] | undefined, mark: string, isRubric = true) => markHint({ isRubric, items, applied, maxMarks: 2, mark });
    expect(hint([], "")).toBe("Apply items by their keys, or 0 for no marks. ");
    expect(hint([], "0")).toBe("No marks: 0, given on purpose. ");
    expect(hint(["a", "b"], "2")).toBe("Items 1 and 2: 3, capped at 2. ");
    expect(hint(["c"], "0")).toBe("Item 3: -1, counted as 0. ");
    expect(hint(undefined, "1")).toBe("A typed mark: applying an item replaces it with the items' sum. ");
    expect(hint(undefined, "", false)).toBe("");
    const ten = Array.from({ length: 10 }, (_, index) => ({ id: `i${index}`, text: `Item ${index}`, points: 1 }));
    expect(markHint({ isRubric: true, items: ten, applied: [], maxMarks: 5, mark: "" })).toBe("Apply items by their keys, or “No marks” for no marks. ");
  });

  it("says why Enter records nothing on an empty question, and how to give 0 or leave it", () => {
    expect(nothingToConfirm(false, 0)).toBe("Nothing is recorded for this question yet: type a mark (0 for no marks). To leave it for later, press ↓.");
    expect(nothingToConfirm(true, 4)).toBe("Nothing is recorded for this question yet: apply items, or press 0 to give no marks. To leave it for later, press ↓.");
    expect(nothingToConfirm(true, 12)).toContain("choose No marks");
  });
});
