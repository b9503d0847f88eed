/*
 * The order of marking, as plain functions: which scripts and questions are marked, in what order,
 * where each key and Enter lead, and which scripts around the current one are fetched ahead.
 */

/** By student: every question of one script, then the next script. By question: one question across every script (as Gradescope does). */
export type MarkingMode = "student" | "question";

/** Where the teacher is: indexes into the markable scripts and questions. */
export interface Position {
  scriptIndex: number;
  questionIndex: number;
}

/** The scripts that can be marked: those with a scan, in the queue's order. */
export function markableScripts<S extends { scan_url: string | null }>(submissions: readonly S[]): S[] {
  return submissions.filter((s) => s.scan_url);
}

/** The questions that take a mark (containers do not), by their order, then by label. */
export function markableQuestions<Q extends { is_container: boolean; order: number; label: string }>(questions: readonly Q[]): Q[] {
  return questions.filter((q) => !q.is_container).sort((a, b) => a.order - b.order || a.label.localeCompare(b.label));
}

/** The script to open when none is chosen (or the chosen one is not markable): the first not yet complete, else the first. */
export function firstScriptToMark<S extends { id: string; status: string }>(scripts: readonly S[]): S | undefined {
  return scripts.find((s) => s.status !== "complete") ?? scripts[0];
}

/** A question index kept inside the questions. */
export function clampQuestion(index: number, questionCount: number): number {
  return Math.max(0, Math.min(index, questionCount - 1));
}

/**
 * The scripts on either side of the current one. After the last script, by question, Enter leads to the
 * first one again (at the next question): `wrapsAround`, and `next` is the first script.
 */
export function scriptsAround<S>(scripts: readonly S[], scriptIndex: number, mode: MarkingMode): { next: S | undefined; previous: S | undefined; wrapsAround: boolean } {
  const wrapsAround = mode === "question" && scriptIndex > 0 && scriptIndex === scripts.length - 1;
  const next = scriptIndex >= 0 ? (scripts[scriptIndex + 1] ?? (wrapsAround ? scripts[0] : undefined)) : undefined;
  const previous = scriptIndex > 0 ? scripts[scriptIndex - 1] : undefined;
  return { next, previous, wrapsAround };
}

/**
 * Where Enter leads once the current mark is confirmed. By student: the next question, then the first
 * question of the next script. By question: the same question of the next script, then the next
 * question of the first script. `finished` after the last of them.
 */
export function afterConfirm(at: Position, counts: { scripts: number; questions: number }, mode: MarkingMode): Position | "finished" {
  const lastScript = at.scriptIndex >= counts.scripts - 1;
  const lastQuestion = at.questionIndex >= counts.questions - 1;
  if (mode === "student") {
    if (!lastQuestion) return { scriptIndex: at.scriptIndex, questionIndex: at.questionIndex + 1 };
    if (!lastScript) return { scriptIndex: at.scriptIndex + 1, questionIndex: 0 };
    return "finished";
  }
  if (!lastScript) return { scriptIndex: at.scriptIndex + 1, questionIndex: at.questionIndex };
  if (!lastQuestion) return { scriptIndex: 0, questionIndex: at.questionIndex + 1 };
  return "finished";
}

/** The question the next script opens on: its first (by student), else this one or, wrapping around, the next one. */
export function questionNextScriptOpensOn<Q>(questions: readonly Q[], questionIndex: number, mode: MarkingMode, wrapsAround: boolean): Q | undefined {
  const current = questions[Math.min(questionIndex, Math.max(0, questions.length - 1))];
  if (mode === "student") return questions[0];
  return wrapsAround ? (questions[questionIndex + 1] ?? current) : current;
}

/** The page a question's answer is on: its response area's, else its first area's, else page 1. */
export function pageOfQuestion(areas: readonly { question_id: string; kind: string; page: number }[], questionId: string | undefined): number {
  const own = areas.filter((area) => area.question_id === questionId);
  return (own.find((area) => area.kind === "response") ?? own[0])?.page ?? 1;
}

/** A script the viewer opens and paints ahead: its bytes once fetched, on the page it will open on. */
export interface UpcomingScan {
  id: string;
  bytes: ArrayBuffer | undefined;
  page: number;
}

/**
 * What the viewer keeps ready besides the current scan: the next script (fetched ahead, opened on
 * `nextPage`) and the previous one while its bytes are still cached, so going back is instant too.
 */
export function upcomingScans(
  next: { id: string; bytes: ArrayBuffer | undefined; page: number } | undefined,
  previous: { id: string; bytes: ArrayBuffer | undefined } | undefined,
): UpcomingScan[] {
  return [...(next ? [next] : []), ...(previous?.bytes ? [{ id: previous.id, bytes: previous.bytes, page: 1 }] : [])];
}
