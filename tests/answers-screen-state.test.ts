import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  type AnswerGroup,
  type BatchAnswers,
  type QuestionAnswers,
  type ScriptAnswer,
  answerInWords,
  checkPosition,
  checkQueue,
  groupHeading,
  isRightAnswer,
  labelOfKey,
  marksOfAnswer,
  scriptMarkInWords,
  toggleLabel,
  unmarkedBlanks,
} from "../components/answers/answers-state";
import { shortcutFor } from "../components/marking/keyboard-map";

const uuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

const script = (n: number, extra: Partial<ScriptAnswer> = {}): ScriptAnswer => ({
  submission_id: uuid(n),
  script_label: `Script ${n}`,
  response_area_id: uuid(900),
  read_answer: null,
  blank: null,
  crop: { page: 1, x: 0.1, y: 0.1, width: 0.5, height: 0.1 },
  awarded_marks: null,
  marked_by: null,
  teacher_answer: null,
  ...extra,
});

const group = (key: string, answer: string[] | null, marks: number | null, scripts: ScriptAnswer[]): AnswerGroup => ({ key, answer, marks, scripts });

const tickQuestion = (id: number, groups: AnswerGroup[]): QuestionAnswers => ({
  question_id: uuid(id),
  label: String(id),
  max_marks: 2,
  kind: "ticks",
  box_labels: ["A", "B", "C", "D"],
  correct: ["B"],
  allow_multiple: false,
  groups,
});

describe("the answers screen's words", () => {
  it("says a group as the teacher reads it: count, answer, right or not, marks", () => {
    const question = tickQuestion(1, []);
    expect(groupHeading(question, group("B", ["B"], 2, Array.from({ length: 14 }, (_, i) => script(i))))).toBe("14 scripts: B ✓ (2 marks)");
    expect(groupHeading(question, group("B+C", ["B", "C"], 0, [script(1), script(2), script(3)]))).toBe("3 scripts: B and C (0 marks)");
    expect(groupHeading(question, group("A", ["A"], 0, [script(1)]))).toBe("1 script: A (0 marks)");
    expect(groupHeading(question, group("none", [], 0, [script(1)]))).toBe("1 script: no box ticked (0 marks)");
    expect(groupHeading(question, group("undecided", null, null, [script(1), script(2)]))).toBe("2 undecided — check them");
    expect(groupHeading(question, group("undecided", null, null, [script(1)]))).toBe("1 undecided — check it");
    expect(groupHeading(question, group("blank", null, null, [1, 2, 3, 4, 5].map((n) => script(n))))).toBe("5 blank");
  });

  it("lists labels with commas and a final 'and'", () => {
    expect(answerInWords(["A", "B", "C"])).toBe("A, B and C");
    expect(answerInWords(null)).toBe("undecided");
  });

  it("says who gave a mark, and a teacher's corrected answer", () => {
    expect(scriptMarkInWords(script(1, { awarded_marks: 2, marked_by: "ticks" }))).toBe("2 marks, from the ticks");
    expect(scriptMarkInWords(script(1, { awarded_marks: 0, marked_by: "blank" }))).toBe("0 marks, blank, given 0 automatically");
    expect(scriptMarkInWords(script(1, { awarded_marks: 0, marked_by: "teacher", teacher_answer: ["C"] }))).toBe("0 marks, by a teacher (C)");
    expect(scriptMarkInWords(script(1))).toBe("No mark yet");
  });

  it("counts the blanks of a written question that have no mark yet", () => {
    const question = { ...tickQuestion(1, []), kind: "written" as const, groups: [group("blank", null, null, [script(1), script(2, { awarded_marks: 0, marked_by: "blank" }), script(3)]), group("written", null, null, [script(4)])] };
    expect(unmarkedBlanks(question)).toBe(2);
  });
});

describe("choosing boxes by key", () => {
  it("takes only the question's labels, either case", () => {
    expect(labelOfKey("b", ["A", "B"])).toBe("B");
    expect(labelOfKey("B", ["A", "B"])).toBe("B");
    expect(labelOfKey("e", ["A", "B"])).toBeNull();
    expect(labelOfKey("Enter", ["A", "B"])).toBeNull();
    expect(labelOfKey("0", ["A", "B"])).toBeNull();
  });

  it("toggles a box, keeping the print order, whatever the order of the keys", () => {
    const labels = ["A", "B", "C", "D", "E"];
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...labels), { maxLength: 30 }), (keys) => {
        const chosen = keys.reduce<string[]>((answer, label) => toggleLabel(answer, label, labels), []);
        // A box is chosen when its key was pressed an odd number of times, and the answer is in print order.
        const expected = labels.filter((label) => keys.filter((key) => key === label).length % 2 === 1);
        expect(chosen).toEqual(expected);
      }),
    );
  });

  it("gives all or nothing, as the scheme does", () => {
    const question = { correct: ["B", "C"], max_marks: 3 };
    expect(marksOfAnswer(question, ["B", "C"])).toBe(3);
    expect(marksOfAnswer(question, ["C", "B"])).toBe(3);
    expect(marksOfAnswer(question, ["B"])).toBe(0);
    expect(marksOfAnswer(question, ["A", "B", "C"])).toBe(0);
    expect(marksOfAnswer(question, [])).toBe(0);
    expect(isRightAnswer({ correct: [] }, [])).toBe(false);
  });
});

describe("the check screen's queue", () => {
  const answers: BatchAnswers = {
    reading: 0,
    auto_zero_blanks: false,
    questions: [
      tickQuestion(1, [group("B", ["B"], 2, [script(1)]), group("undecided", null, null, [script(2), script(3)])]),
      { ...tickQuestion(2, []), kind: "written", groups: [group("undecided", null, null, [script(4)]), group("blank", null, null, [script(5)])] },
      tickQuestion(3, [group("undecided", null, null, [script(6)])]),
    ],
  };

  it("lists the undecided tick answers question by question, not the written ones", () => {
    expect(checkQueue(answers, new Set()).map((item) => item.key)).toEqual([`${uuid(1)}:${uuid(2)}`, `${uuid(1)}:${uuid(3)}`, `${uuid(3)}:${uuid(6)}`]);
  });

  it("drops those decided here and puts skipped ones last", () => {
    const queue = checkQueue(answers, new Set([`${uuid(1)}:${uuid(2)}`]), [`${uuid(1)}:${uuid(3)}`]);
    expect(queue.map((item) => item.key)).toEqual([`${uuid(3)}:${uuid(6)}`, `${uuid(1)}:${uuid(3)}`]);
    expect(checkPosition(1, queue.length)).toBe("2 of 3");
    expect(checkQueue(undefined, new Set())).toEqual([]);
  });
});

describe("the marking screen's key for an automatic mark", () => {
  it("undoes it with u from the mark and the page, never from the comment, where u is a letter", () => {
    const press = { key: "u", shiftKey: false, ctrlKey: false, metaKey: false, altKey: false };
    expect(shortcutFor(press, "mark")).toBe("undoAutomaticMark");
    expect(shortcutFor(press, "page")).toBe("undoAutomaticMark");
    expect(shortcutFor(press, "comment")).toBeNull();
    expect(shortcutFor({ ...press, ctrlKey: true }, "page")).toBeNull();
  });
});
