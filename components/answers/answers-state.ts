import type { z } from "zod";
import type { batchAnswersOutput, markProvenance, submissionAnswersOutput } from "@/server/exam/answers/shapes";

/*
 * The answers screen's and the check screen's words and order, kept apart from React so they are
 * tested alone (tests/answers-screen-state.test.ts). The data is the exam.answers operations' (their
 * shapes in server/exam/answers/shapes.ts; types only cross the fence).
 */

export type BatchAnswers = z.infer<typeof batchAnswersOutput>;
export type QuestionAnswers = BatchAnswers["questions"][number];
export type AnswerGroup = QuestionAnswers["groups"][number];
export type ScriptAnswer = AnswerGroup["scripts"][number];
export type SubmissionAnswer = z.infer<typeof submissionAnswersOutput>["answers"][number];
type MarkProvenance = z.infer<typeof markProvenance>;

/** Where a script's crop of one response area is served (a PNG, covered where the page's covers lie). */
export const answerCropUrl = (submissionId: string, responseAreaId: string) => `/api/exam/submissions/${submissionId}/answer-crops/${responseAreaId}`;

const plural = (count: number, one: string, many = `${one}s`) => `${count} ${count === 1 ? one : many}`;

/** Marks in words: "1 mark", "2 marks", "1.5 marks". */
export const marksInWords = (marks: number) => plural(marks, "mark");

/** A set of ticked labels in words: "B", "B and C", "A, B and C"; none ticked: "no box ticked"; not decided: "undecided". */
export function answerInWords(answer: readonly string[] | null): string {
  if (answer === null) return "undecided";
  if (answer.length === 0) return "no box ticked";
  if (answer.length === 1) return answer[0]!;
  return `${answer.slice(0, -1).join(", ")} and ${answer[answer.length - 1]}`;
}

/** Whether an answer is exactly the right boxes of the question. */
export function isRightAnswer(question: Pick<QuestionAnswers, "correct">, answer: readonly string[] | null): boolean {
  if (answer === null || question.correct.length === 0 || answer.length !== question.correct.length) return false;
  const right = new Set(question.correct);
  return answer.every((label) => right.has(label));
}

/** The group's kind, from its key: the check screen's undecided ones, the blanks, the written answers, or a decided answer. */
export function groupKind(group: Pick<AnswerGroup, "key" | "answer">): "undecided" | "blank" | "written" | "answer" | "other" {
  if (group.key === "undecided") return "undecided";
  if (group.key === "blank") return "blank";
  if (group.key === "written") return "written";
  return group.answer !== null ? "answer" : "other";
}

/**
 * The heading of a group of identical answers: "14 scripts: B ✓ (2 marks)", "3 scripts: B and C (0 marks)",
 * "2 undecided — check them", "5 blank", "12 written".
 */
export function groupHeading(question: Pick<QuestionAnswers, "correct">, group: AnswerGroup): string {
  const count = group.scripts.length;
  switch (groupKind(group)) {
    case "undecided":
      return `${count} undecided — check ${count === 1 ? "it" : "them"}`;
    case "blank":
      return `${count} blank`;
    case "written":
      return `${count} written`;
    case "answer": {
      const right = isRightAnswer(question, group.answer) ? " ✓" : "";
      const marks = group.marks === null ? "" : ` (${marksInWords(group.marks)})`;
      return `${plural(count, "script")}: ${answerInWords(group.answer)}${right}${marks}`;
    }
    default:
      return `${plural(count, "script")}: ${group.key}`;
  }
}

/** Who gave a mark, in words beside it: "from the ticks", "blank, given 0 automatically", "by a teacher". */
function provenanceInWords(markedBy: MarkProvenance | null): string | null {
  if (markedBy === "ticks") return "from the ticks";
  if (markedBy === "blank") return "blank, given 0 automatically";
  if (markedBy === "teacher") return "by a teacher";
  return null;
}

/** A script's mark as the answers screen says it: "2 marks, from the ticks", "0 marks, by a teacher (B)", "No mark yet". */
export function scriptMarkInWords(script: Pick<ScriptAnswer, "awarded_marks" | "marked_by" | "teacher_answer">): string {
  if (script.awarded_marks === null) return "No mark yet";
  const who = provenanceInWords(script.marked_by);
  const corrected = script.marked_by === "teacher" && script.teacher_answer ? ` (${answerInWords(script.teacher_answer)})` : "";
  return `${marksInWords(script.awarded_marks)}${who ? `, ${who}` : ""}${corrected}`;
}

/** The box label a key chooses on a question ("b" or "B" → "B"), or null when the question has no such box. */
export function labelOfKey(key: string, boxLabels: readonly string[]): string | null {
  if (key.length !== 1) return null;
  const label = key.toUpperCase();
  return boxLabels.includes(label) ? label : null;
}

/**
 * A box ticked or unticked in the answer being chosen, kept in the question's box order. What is chosen
 * is what the student ticked (two boxes on a one-answer question are recorded as two: the scheme gives
 * them 0), so a box toggles whether or not the question allows more than one tick.
 */
export function toggleLabel(answer: readonly string[], label: string, boxLabels: readonly string[]): string[] {
  const next = answer.includes(label) ? answer.filter((chosen) => chosen !== label) : [...answer, label];
  return [...next].sort((a, b) => boxOrder(boxLabels, a) - boxOrder(boxLabels, b));
}

const boxOrder = (boxLabels: readonly string[], label: string) => {
  const index = boxLabels.indexOf(label);
  return index < 0 ? boxLabels.length + label.charCodeAt(0) : index;
};

/** The marks an answer earns on a tick question: all or nothing (lib/rules/tick-boxes.ts multipleChoiceMarks, restated on the question's fields). */
export function marksOfAnswer(question: Pick<QuestionAnswers, "correct" | "max_marks">, answer: readonly string[]): number {
  return isRightAnswer(question, answer) ? question.max_marks : 0;
}

export interface CheckItem {
  question: QuestionAnswers;
  script: ScriptAnswer;
  /** "q:submission": stable while the list is read again. */
  key: string;
}

const checkItemKey = (questionId: string, submissionId: string) => `${questionId}:${submissionId}`;

/**
 * The check screen's queue: every undecided tick answer, question by question in the paper's order
 * (the same boxes one after another: the eye keeps their layout), and within a question in the
 * operation's script order. Items decided on this screen (`done`) leave at once, before the list is
 * read again; skipped ones go last.
 */
export function checkQueue(answers: BatchAnswers | undefined, done: ReadonlySet<string>, skipped: readonly string[] = []): CheckItem[] {
  if (!answers) return [];
  const items = answers.questions
    .filter((question) => question.kind === "ticks")
    .flatMap((question) =>
      question.groups
        .filter((group) => groupKind(group) === "undecided")
        .flatMap((group) => group.scripts.map((script) => ({ question, script, key: checkItemKey(question.question_id, script.submission_id) }))),
    )
    .filter((item) => !done.has(item.key));
  const skippedAt = (key: string) => skipped.indexOf(key);
  return items
    .map((item, index) => ({ item, index }))
    .sort((a, b) => skippedAt(a.item.key) - skippedAt(b.item.key) || a.index - b.index)
    .map(({ item }) => item);
}

/** "3 of 7": the one on screen among those decided here and those left. */
export function checkPosition(doneCount: number, leftCount: number): string {
  return `${doneCount + 1} of ${doneCount + leftCount}`;
}

/** How many blank answers of a written question have no mark yet (what "Give all N blanks 0" gives). */
export function unmarkedBlanks(question: QuestionAnswers): number {
  return question.groups.filter((group) => groupKind(group) === "blank").flatMap((group) => group.scripts).filter((script) => script.awarded_marks === null).length;
}

/** Whether a template's response areas are read from the scan (tick boxes or written answers): the batch page links the answers screen then. */
export function hasReadAreas(areas: readonly { kind: string; tick_boxes?: readonly unknown[] | null }[]): boolean {
  return areas.some((area) => area.kind === "response");
}
