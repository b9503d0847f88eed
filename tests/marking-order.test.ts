import { describe, expect, it } from "vitest";
import {
  afterConfirm,
  clampQuestion,
  firstScriptToMark,
  markableQuestions,
  markableScripts,
  pageOfQuestion,
  questionNextScriptOpensOn,
  scriptsAround,
  upcomingScans,
} from "../components/marking/marking-order";

const script = (id: string, status = "unmarked", scan_url: string | null = `scans/${id}.pdf`) => ({ id, status, scan_url });

describe("markable scripts and questions", () => {
  it("marks only the scripts that have a scan, in the queue's order", () => {
    expect(markableScripts([script("a"), script("b", "unmarked", null), script("c")]).map((s) => s.id)).toEqual(["a", "c"]);
  });

  it("marks the questions that are not containers, by order then label", () => {
    const questions = [
      { id: "q1", label: "1", order: 1, is_container: true },
      { id: "q1b", label: "1b", order: 3, is_container: false },
      { id: "q1a", label: "1a", order: 3, is_container: false },
      { id: "q2", label: "2", order: 2, is_container: false },
    ];
    expect(markableQuestions(questions).map((q) => q.id)).toEqual(["q2", "q1a", "q1b"]);
    expect(questions[0]!.id).toBe("q1"); // the input is left as it was
  });

  it("opens the first script not yet complete, else the first", () => {
    expect(firstScriptToMark([script("a", "complete"), script("b", "in_progress"), script("c")])?.id).toBe("b");
    expect(firstScriptToMark([script("a", "complete"), script("b", "complete")])?.id).toBe("a");
    expect(firstScriptToMark([])).toBeUndefined();
  });

  it("keeps a question index inside the questions", () => {
    expect(clampQuestion(-1, 3)).toBe(0);
    expect(clampQuestion(1, 3)).toBe(1);
    expect(clampQuestion(5, 3)).toBe(2);
  });
});

describe("the scripts around the current one", () => {
  const scripts = ["a", "b", "c"];

  it("has a next and a previous inside the list", () => {
    expect(scriptsAround(scripts, 1, "student")).toEqual({ next: "c", previous: "a", wrapsAround: false });
    expect(scriptsAround(scripts, 0, "student")).toEqual({ next: "b", previous: undefined, wrapsAround: false });
  });

  it("by student, ends at the last script", () => {
    expect(scriptsAround(scripts, 2, "student")).toEqual({ next: undefined, previous: "b", wrapsAround: false });
  });

  it("by question, wraps from the last script to the first", () => {
    expect(scriptsAround(scripts, 2, "question")).toEqual({ next: "a", previous: "b", wrapsAround: true });
  });

  it("does not wrap a single script onto itself, nor a script not in the list", () => {
    expect(scriptsAround(["a"], 0, "question")).toEqual({ next: undefined, previous: undefined, wrapsAround: false });
    expect(scriptsAround(scripts, -1, "question")).toEqual({ next: undefined, previous: undefined, wrapsAround: false });
  });
});

describe("where Enter leads", () => {
  const counts = { scripts: 2, questions: 3 };

  it("by student: the next question, then the next script's first question, then finished", () => {
    expect(afterConfirm({ scriptIndex: 0, questionIndex: 0 }, counts, "student")).toEqual({ scriptIndex: 0, questionIndex: 1 });
    expect(afterConfirm({ scriptIndex: 0, questionIndex: 2 }, counts, "student")).toEqual({ scriptIndex: 1, questionIndex: 0 });
    expect(afterConfirm({ scriptIndex: 1, questionIndex: 2 }, counts, "student")).toBe("finished");
  });

  it("by question: the next script, then the first script's next question, then finished", () => {
    expect(afterConfirm({ scriptIndex: 0, questionIndex: 1 }, counts, "question")).toEqual({ scriptIndex: 1, questionIndex: 1 });
    expect(afterConfirm({ scriptIndex: 1, questionIndex: 1 }, counts, "question")).toEqual({ scriptIndex: 0, questionIndex: 2 });
    expect(afterConfirm({ scriptIndex: 1, questionIndex: 2 }, counts, "question")).toBe("finished");
  });

  it("finishes a one-script, one-question paper in either mode", () => {
    const one = { scripts: 1, questions: 1 };
    expect(afterConfirm({ scriptIndex: 0, questionIndex: 0 }, one, "student")).toBe("finished");
    expect(afterConfirm({ scriptIndex: 0, questionIndex: 0 }, one, "question")).toBe("finished");
  });
});

describe("what is fetched ahead", () => {
  const questions = ["q1", "q2", "q3"];

  it("opens the next script on its first question by student, on this question by question, on the next one when wrapping", () => {
    expect(questionNextScriptOpensOn(questions, 1, "student", false)).toBe("q1");
    expect(questionNextScriptOpensOn(questions, 1, "question", false)).toBe("q2");
    expect(questionNextScriptOpensOn(questions, 1, "question", true)).toBe("q3");
    // Wrapping after the last question stays on it.
    expect(questionNextScriptOpensOn(questions, 2, "question", true)).toBe("q3");
  });

  it("opens a question on its response area's page, else its first area's, else page 1", () => {
    const areas = [
      { question_id: "q1", kind: "context", page: 1 },
      { question_id: "q1", kind: "response", page: 2 },
      { question_id: "q2", kind: "context", page: 3 },
    ];
    expect(pageOfQuestion(areas, "q1")).toBe(2);
    expect(pageOfQuestion(areas, "q2")).toBe(3);
    expect(pageOfQuestion(areas, "q3")).toBe(1);
    expect(pageOfQuestion(areas, undefined)).toBe(1);
  });

  it("keeps the next script (bytes or not) and the previous one only while its bytes are cached", () => {
    const bytes = new ArrayBuffer(4);
    expect(upcomingScans({ id: "n", bytes: undefined, page: 2 }, { id: "p", bytes })).toEqual([
      { id: "n", bytes: undefined, page: 2 },
      { id: "p", bytes, page: 1 },
    ]);
    expect(upcomingScans(undefined, { id: "p", bytes: undefined })).toEqual([]);
  });
});
