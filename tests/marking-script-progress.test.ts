import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { liveScriptStatus, questionProgress } from "../components/marking/script-progress";

const mark = (confirmed: boolean, awarded_marks: number | null) => ({ confirmed, awarded_marks });

describe("a question's state in the strip", () => {
  it("is a draft while a change is not saved, whatever is recorded", () => {
    expect(questionProgress(undefined, true)).toBe("draft");
    expect(questionProgress(mark(true, 2), true)).toBe("draft");
  });

  it("is done when confirmed with a mark, begun when recorded otherwise, to do when nothing is recorded", () => {
    expect(questionProgress(mark(true, 0), false)).toBe("done");
    expect(questionProgress(mark(false, 2), false)).toBe("partial");
    expect(questionProgress(mark(true, null), false)).toBe("partial");
    expect(questionProgress(undefined, false)).toBe("todo");
  });
});

describe("the script's status on screen", () => {
  it("is what the queue said until a mark is recorded", () => {
    expect(liveScriptStatus(["a", "b"], new Map(), "matched")).toBe("matched");
    expect(liveScriptStatus([], new Map(), "matched")).toBe("matched");
  });

  it("is complete exactly when every question has a confirmed mark, else marking once a mark is recorded", () => {
    const recorded = fc.option(fc.record({ confirmed: fc.boolean(), awarded_marks: fc.option(fc.integer({ min: 0, max: 20 })) }), { nil: undefined });
    fc.assert(
      fc.property(fc.array(recorded, { minLength: 1, maxLength: 8 }), (entries) => {
        const ids = entries.map((_, index) => `q${index}`);
        const marks = new Map(entries.flatMap((entry, index) => (entry ? [[`q${index}`, entry] as const] : [])));
        const status = liveScriptStatus(ids, marks, "matched");
        const complete = entries.every((entry) => entry?.confirmed && entry.awarded_marks !== null);
        expect(status).toBe(complete ? "complete" : marks.size > 0 ? "marking" : "matched");
      }),
    );
  });
});
