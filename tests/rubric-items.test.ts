import { describe, expect, it } from "vitest";
import {
  type RubricItemView,
  bodyOfDraft,
  changesOf,
  draftOf,
  formatPoints,
  itemKey,
  itemsOfQuestion,
  movePosition,
  moved,
  parsePoints,
  placeError,
  rescoredSentence,
  overMaximumWarning,
  rubricOverMaximum,
} from "../components/rubric/rubric-items";

const item = (id: string, position: number, extra: Partial<RubricItemView> = {}): RubricItemView => ({
  id,
  question_id: "q1",
  position,
  text: `Item ${id}`,
  points: 1,
  spec_ref: null,
  comment: null,
  created_at: new Date(Date.UTC(2026, 10, 28, 9, 0, position)),
  ...extra,
});

/** What the server does with a position (server/exam/rubrics.ts makeRoomAt): the order it leads to. */
function applyMove(items: RubricItemView[], id: string, position: number): string[] {
  const next = items.map((it) => (it.id === id ? { ...it, position } : it.position >= position ? { ...it, position: it.position + 1 } : it));
  return itemsOfQuestion(next, "q1").map((it) => it.id);
}

describe("the order and keys of a question's items", () => {
  it("keeps one question's items, by position then creation", () => {
    const items = [
      item("c", 2),
      item("other", 0, { question_id: "q2" }),
      item("b", 1, { created_at: "2026-11-28T10:00:00.000Z" }),
      item("a", 1, { created_at: "2026-11-28T08:00:00.000Z" }),
    ];
    expect(itemsOfQuestion(items, "q1").map((it) => it.id)).toEqual(["a", "b", "c"]);
  });

  it("gives keys 1 to 9, then 0 to the tenth, and none after", () => {
    expect([0, 1, 8, 9, 10, 49].map(itemKey)).toEqual(["1", "2", "9", "0", null, null]);
  });
});

describe("points", () => {
  it("are shown signed, with a true minus sign", () => {
    expect([2, -1, 0, 0.5, -0.25, 1.1].map(formatPoints)).toEqual(["+2", "\u22121", "0", "+0.5", "\u22120.25", "+1.1"]);
  });

  it("are read as typed, with either minus sign and a decimal comma", () => {
    expect(["2", "+2", "-1", "\u22121", " 1.5 ", "1,5", "-0", "0.25"].map(parsePoints)).toEqual([
      { value: 2 },
      { value: 2 },
      { value: -1 },
      { value: -1 },
      { value: 1.5 },
      { value: 1.5 },
      { value: 0 },
      { value: 0.25 },
    ]);
  });

  it("refuse what is not a number of hundredths, saying why", () => {
    expect(parsePoints("")).toEqual({ error: "Points are required, e.g. 2 or -1." });
    for (const typed of ["1e3", "two", "1.2.3", "--1", "0x10", "."]) {
      expect(parsePoints(typed), typed).toEqual({ error: "Points must be a number such as 2, -1 or 0.5." });
    }
    expect(parsePoints("0.125")).toEqual({ error: "Points can have at most two decimals." });
    expect(parsePoints("1000000")).toHaveProperty("error");
  });
});

describe("drafts and edits", () => {
  it("need a text and points; blank optional fields are none", () => {
    expect(bodyOfDraft({ text: "  ", points: "x", spec_ref: "", comment: "" })).toEqual({
      errors: { text: "Describe what the item rewards or penalises.", points: "Points must be a number such as 2, -1 or 0.5." },
    });
    expect(bodyOfDraft({ text: " Correct method ", points: "+2", spec_ref: "  ", comment: "\n" })).toEqual({
      body: { text: "Correct method", points: 2, spec_ref: null, comment: null },
    });
  });

  it("send only the fields that changed", () => {
    const saved = item("a", 0, { text: "Method", points: 2, spec_ref: "N1", comment: "Show your working" });
    const same = bodyOfDraft(draftOf(saved));
    expect("body" in same && changesOf(saved, same.body)).toEqual({});
    const edited = bodyOfDraft({ ...draftOf(saved), points: "3", comment: "" });
    expect("body" in edited && changesOf(saved, edited.body)).toEqual({ points: 3, comment: null });
  });
});

describe("moving an item", () => {
  const items = [item("a", 0), item("b", 1), item("c", 3), item("d", 4)];

  it("sends the position that swaps it with its neighbour, gaps included", () => {
    for (const [index, direction, expected] of [
      [0, 1, ["b", "a", "c", "d"]],
      [1, 1, ["a", "c", "b", "d"]],
      [2, -1, ["a", "c", "b", "d"]],
      [3, -1, ["a", "b", "d", "c"]],
      [1, -1, ["b", "a", "c", "d"]],
    ] as const) {
      const position = movePosition(items, index, direction);
      expect(position, `${index} ${direction}`).not.toBeNull();
      expect(applyMove(items, items[index]!.id, position!)).toEqual(expected);
      expect(moved(items, index, direction).map((it) => it.id)).toEqual(expected);
    }
  });

  it("goes nowhere past either end", () => {
    expect(movePosition(items, 0, -1)).toBeNull();
    expect(movePosition(items, 3, 1)).toBeNull();
    expect(moved(items, 3, 1).map((it) => it.id)).toEqual(["a", "b", "c", "d"]);
  });
});

describe("server answers", () => {
  it("name the field a refusal is about", () => {
    expect(placeError("Points: must have at most 2 decimals")).toEqual({ field: "points", message: "Must have at most 2 decimals" });
    expect(placeError("Text: text is required")).toEqual({ field: "text", message: "Text is required" });
    expect(placeError("Specification point: must have at most 200 characters").field).toBe("spec_ref");
    expect(placeError("Comment: must not contain control characters").field).toBe("comment");
    const refusal = "Only the template's owner can change its rubric";
    expect(placeError(refusal)).toEqual({ field: null, message: refusal });
  });

  it("say how many marks were re-scored", () => {
    expect(rescoredSentence(14)).toBe("Re-scored 14 marks.");
    expect(rescoredSentence(1)).toBe("Re-scored 1 mark.");
    expect(rescoredSentence(0)).toBe("No recorded marks used it, so none were re-scored.");
  });
});

describe("a rubric that adds up to more than its question (issue 33, item 11)", () => {
  it("warns when the positive items together pass the maximum, in hundredths, and not otherwise", () => {
    expect(rubricOverMaximum([{ points: 2 }, { points: 2 }, { points: -1 }], 3)).toEqual({ most: 4, maxMarks: 3 });
    expect(rubricOverMaximum([{ points: 1 }, { points: 2 }, { points: -5 }], 3)).toBeNull();
    expect(rubricOverMaximum([{ points: 0.1 }, { points: 0.2 }], 0.3)).toBeNull();
    expect(rubricOverMaximum([{ points: 5 }], null)).toBeNull();
    expect(overMaximumWarning({ most: 4, maxMarks: 3 }, "2")).toBe("The items add up to 4, more than the 3 marks question 2 is worth: a mark made of them stops at 3.");
  });
});
