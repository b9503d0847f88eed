import { randomUUID } from "node:crypto";
import { and, asc, eq, inArray, sql } from "drizzle-orm";
import type { z } from "zod";
import { hasTickBoxes, type MultipleChoiceScheme, MULTIPLE_CHOICE, multipleChoiceMarks } from "../../../lib/rules/tick-boxes";
import { type Db, type Tx, rowsOf } from "../../db/client";
import { asService, asUser } from "../../db/rls";
import { examAnswerReadings, examBatches, examMarkEntries, examQuestions, examResponseAreas, examSubmissions } from "../../db/schema";
import { AppError, notFound } from "../../errors";
import { scriptLabel } from "../anonymity";
import { openBatchFor } from "../batch-gate";
import { type MarkUpsert, upsertMarksAllOrNothing } from "../marks";
import type {
  answerGroup,
  batchAnswersInput,
  batchAnswersOutput,
  questionAnswers,
  scriptAnswer,
  setAnswerInput,
  setAnswerOutput,
  setAutoZeroBlanksInput,
  undoAutomaticMarkInput,
  undoAutomaticMarkOutput,
  submissionAnswersInput,
  submissionAnswersOutput,
  zeroBlanksInput,
  zeroBlanksOutput,
} from "./shapes";
import { readAnswersQueue } from "../answer-reading-queue";
import { moveStatus, writeAutomaticMarks } from "./automatic-marks";

/**
 * The answers read from a batch's scans (issue 36), as the answers screen, the check screen and the
 * marking screen take them (exam.answers.*; shapes.ts): per question, each script's reading with the
 * mark now recorded and who gave it, grouped by identical answers; and the marker's decisions on them,
 * written as a teacher's marks through the mark write's own rules (marks.ts).
 */

/** How far a crop reaches beyond its response area, as a share of the page (scans lie within a few mm). */
const CROP_MARGIN = 0.04;

type ScriptAnswer = z.output<typeof scriptAnswer>;
type QuestionAnswers = z.output<typeof questionAnswers>;
type AnswerGroup = z.output<typeof answerGroup>;
type Reading = typeof examAnswerReadings.$inferSelect;
type Area = typeof examResponseAreas.$inferSelect;
type Question = Pick<typeof examQuestions.$inferSelect, "id" | "label" | "order" | "max_marks" | "mark_scheme" | "is_container">;
type MarkRow = Pick<typeof examMarkEntries.$inferSelect, "submission_id" | "question_id" | "awarded_marks" | "marked_by" | "mark_scheme_detail">;
type SubmissionRow = Pick<typeof examSubmissions.$inferSelect, "id" | "script_number" | "student_name">;

/** A tick question's scheme as the template holds it, or nothing for another question. */
function schemeOf(question: Question): Pick<MultipleChoiceScheme, "correct" | "allow_multiple"> | null {
  const scheme = question.mark_scheme;
  if (scheme?.type !== MULTIPLE_CHOICE) return null;
  const correct = Array.isArray(scheme.correct) ? scheme.correct.filter((label): label is string => typeof label === "string") : [];
  return { correct, allow_multiple: scheme.allow_multiple === true };
}

/** The labels of a tick question's boxes, in print order (area by area). */
const boxLabelsOf = (areas: Area[]) => areas.flatMap((area) => (area.tick_boxes ?? []).map((box) => box.label));

/** The template's questions that are read from the scan: leaves with tick-box or written response areas, in order. */
async function readQuestions(tx: Tx, templateId: string) {
  const questions = await tx
    .select({
      id: examQuestions.id,
      label: examQuestions.label,
      order: examQuestions.order,
      max_marks: examQuestions.max_marks,
      mark_scheme: examQuestions.mark_scheme,
      is_container: examQuestions.is_container,
    })
    .from(examQuestions)
    .where(eq(examQuestions.template_id, templateId))
    .orderBy(asc(examQuestions.order), asc(examQuestions.label));
  const areas = await tx
    .select()
    .from(examResponseAreas)
    .where(and(eq(examResponseAreas.template_id, templateId), eq(examResponseAreas.kind, "response")))
    .orderBy(asc(examResponseAreas.page), asc(examResponseAreas.y), asc(examResponseAreas.x));
  const areasOf = new Map<string, Area[]>();
  for (const area of areas) areasOf.set(area.question_id, [...(areasOf.get(area.question_id) ?? []), area]);
  return questions
    .filter((question) => !question.is_container && areasOf.has(question.id))
    .map((question) => {
      const own = areasOf.get(question.id)!;
      const ticks = own.some(hasTickBoxes);
      return { question, kind: ticks ? ("ticks" as const) : ("written" as const), areas: ticks ? own.filter(hasTickBoxes) : own };
    });
}
type ReadQuestion = Awaited<ReturnType<typeof readQuestions>>[number];

/** The crop's place: the area grown by CROP_MARGIN, within the page. */
export function cropRect(area: Pick<Area, "x" | "y" | "width" | "height">) {
  const x = Math.max(0, area.x - CROP_MARGIN);
  const y = Math.max(0, area.y - CROP_MARGIN);
  return { x, y, width: Math.min(1, area.x + area.width + CROP_MARGIN) - x, height: Math.min(1, area.y + area.height + CROP_MARGIN) - y };
}

/** A tick answer's group key: "A", "B+C", "none". */
const answerKey = (answer: readonly string[]) => (answer.length === 0 ? "none" : [...answer].sort().join("+"));

/** One script's answer to one question, from its readings of the question's areas and its mark. */
function scriptAnswerOf(entry: ReadQuestion, submission: SubmissionRow, readings: Reading[], mark: MarkRow | undefined, namesHidden: boolean): ScriptAnswer {
  const first = readings[0]!;
  const area = entry.areas.find((candidate) => candidate.id === first.response_area_id) ?? entry.areas[0]!;
  let readAnswer: string[] | null = null;
  let blank: ScriptAnswer["blank"] = null;
  if (entry.kind === "ticks") {
    readAnswer = readings.some((reading) => reading.answer === null) ? null : [...new Set(readings.flatMap((reading) => reading.answer ?? []))].sort();
  } else {
    const states = readings.map((reading) => reading.blank);
    blank = states.every((state) => state === "blank") ? "blank" : states.some((state) => state === "written") ? "written" : "uncertain";
  }
  const detail = mark?.mark_scheme_detail as { type?: unknown; answer?: unknown } | null | undefined;
  const teacherAnswer =
    mark?.marked_by === "teacher" && detail?.type === MULTIPLE_CHOICE && Array.isArray(detail.answer) ? detail.answer.filter((label): label is string => typeof label === "string") : null;
  return {
    submission_id: submission.id,
    script_label: namesHidden ? scriptLabel(submission.script_number) : (submission.student_name ?? scriptLabel(submission.script_number)),
    response_area_id: area.id,
    read_answer: readAnswer,
    blank,
    crop: { page: first.page_number, ...cropRect(area) },
    awarded_marks: mark?.awarded_marks == null ? null : Number(mark.awarded_marks),
    marked_by: (mark?.marked_by as ScriptAnswer["marked_by"]) ?? null,
    teacher_answer: teacherAnswer,
  };
}

/** The groups of one question's scripts: by the teacher's answer if any, else the read one; undecided and blanks on their own. */
function groupsOf(entry: ReadQuestion, answers: ScriptAnswer[]): AnswerGroup[] {
  const scheme = schemeOf(entry.question);
  const maxMarks = Number(entry.question.max_marks ?? 0);
  const groups = new Map<string, AnswerGroup>();
  const add = (key: string, answer: string[] | null, marks: number | null, script: ScriptAnswer) => {
    const group = groups.get(key) ?? { key, answer, marks, scripts: [] };
    group.scripts.push(script);
    groups.set(key, group);
  };
  for (const script of answers) {
    if (entry.kind === "written") {
      add(script.blank === "blank" ? "blank" : "written", null, null, script);
      continue;
    }
    const answer = script.teacher_answer ?? script.read_answer;
    if (answer === null) add("undecided", null, null, script);
    else add(answerKey(answer), [...answer].sort(), scheme ? multipleChoiceMarks(scheme, maxMarks, answer) : null, script);
  }
  // Largest group first; undecided, then blank, last (their own screens take them).
  const rank = (key: string) => (key === "undecided" || key === "blank" ? 1 : 0);
  return [...groups.values()].sort((a, b) => rank(a.key) - rank(b.key) || b.scripts.length - a.scripts.length || a.key.localeCompare(b.key));
}

async function readingsAndMarks(tx: Tx, where: { batchId: string } | { submissionId: string }) {
  const readingFilter = "batchId" in where ? eq(examAnswerReadings.batch_id, where.batchId) : eq(examAnswerReadings.submission_id, where.submissionId);
  const markFilter = "batchId" in where ? eq(examMarkEntries.batch_id, where.batchId) : eq(examMarkEntries.submission_id, where.submissionId);
  const readings = await tx.select().from(examAnswerReadings).where(readingFilter).orderBy(asc(examAnswerReadings.page_number));
  const marks = await tx
    .select({
      submission_id: examMarkEntries.submission_id,
      question_id: examMarkEntries.question_id,
      awarded_marks: examMarkEntries.awarded_marks,
      marked_by: examMarkEntries.marked_by,
      mark_scheme_detail: examMarkEntries.mark_scheme_detail,
    })
    .from(examMarkEntries)
    .where(markFilter);
  const markOf = new Map(marks.map((mark) => [`${mark.submission_id}/${mark.question_id}`, mark]));
  return { readings, markOf };
}

/** Each script's answer to one question, for the scripts that have readings of it. */
function answersTo(entry: ReadQuestion, readings: Reading[], submissions: Map<string, SubmissionRow>, markOf: Map<string, MarkRow>, namesHidden: boolean): ScriptAnswer[] {
  const bySubmission = new Map<string, Reading[]>();
  for (const reading of readings) {
    if (reading.question_id !== entry.question.id) continue;
    bySubmission.set(reading.submission_id, [...(bySubmission.get(reading.submission_id) ?? []), reading]);
  }
  return [...bySubmission]
    .flatMap(([submissionId, own]) => {
      const submission = submissions.get(submissionId);
      return submission ? [{ submission, own }] : [];
    })
    .sort((a, b) => a.submission.script_number - b.submission.script_number)
    .map(({ submission, own }) => scriptAnswerOf(entry, submission, own, markOf.get(`${submission.id}/${entry.question.id}`), namesHidden));
}

function questionOf(entry: ReadQuestion, answers: ScriptAnswer[]): QuestionAnswers {
  const scheme = schemeOf(entry.question);
  return {
    question_id: entry.question.id,
    label: entry.question.label,
    max_marks: Number(entry.question.max_marks ?? 0),
    kind: entry.kind,
    box_labels: entry.kind === "ticks" ? boxLabelsOf(entry.areas) : [],
    correct: scheme?.correct ?? [],
    allow_multiple: scheme?.allow_multiple ?? false,
    groups: groupsOf(entry, answers),
  };
}

/** GET the batch's answers: every question read from the scan, its scripts grouped by answer. */
export async function batchAnswers(db: Db, callerId: string, input: z.input<typeof batchAnswersInput>): Promise<z.output<typeof batchAnswersOutput>> {
  const found = await asUser(db, callerId, async (tx) => {
    const [batch] = await tx.select().from(examBatches).where(eq(examBatches.id, input.batch_id));
    if (!batch) throw notFound("Batch");
    const entries = await readQuestions(tx, batch.template_id);
    const submissions = await tx
      .select({ id: examSubmissions.id, script_number: examSubmissions.script_number, student_name: examSubmissions.student_name })
      .from(examSubmissions)
      .where(eq(examSubmissions.batch_id, batch.id));
    const { readings, markOf } = await readingsAndMarks(tx, { batchId: batch.id });
    const byId = new Map(submissions.map((submission) => [submission.id, submission]));
    return {
      batch,
      questions: entries.map((entry) => questionOf(entry, answersTo(entry, readings, byId, markOf, batch.anonymous))),
    };
  });
  return { reading: await scriptsBeingRead(db, found.batch.id), auto_zero_blanks: found.batch.auto_zero_blanks, questions: found.questions };
}

/** Scripts of the batch whose areas wait to be read, or are being read (the reading jobs queued or running). */
async function scriptsBeingRead(db: Db, batchId: string): Promise<number> {
  // The jobs are the service's (queued by filing); only their count is told, for a batch the caller sees.
  const [row] = await asService(db, async (tx) =>
    rowsOf<{ count: number }>(
      await tx.execute(sql`select count(*)::int as count from background_jobs
        where kind = ${readAnswersQueue.name} and state in ('queued', 'running') and payload ->> 'batch_id' = ${batchId}`),
    ),
  );
  return row?.count ?? 0;
}

/** GET one script's answers: per question read, its reading and mark (the marking screen). */
export async function submissionAnswers(tx: Tx, input: z.input<typeof submissionAnswersInput>): Promise<z.output<typeof submissionAnswersOutput>> {
  const [row] = await tx
    .select({ submission: examSubmissions, batch: examBatches })
    .from(examSubmissions)
    .innerJoin(examBatches, eq(examBatches.id, examSubmissions.batch_id))
    .where(eq(examSubmissions.id, input.submission_id));
  if (!row) throw notFound("Submission");
  const entries = await readQuestions(tx, row.batch.template_id);
  const { readings, markOf } = await readingsAndMarks(tx, { submissionId: row.submission.id });
  const submissions = new Map([[row.submission.id, row.submission]]);
  return {
    answers: entries.flatMap((entry) => answersTo(entry, readings, submissions, markOf, row.batch.anonymous).map((answer) => ({ ...answer, question_id: entry.question.id }))),
  };
}

/** The batch (gate: a mark write) and the tick or written question of it named, as the caller sees them. */
async function questionToMark(tx: Tx, callerId: string, batchId: string, questionId: string) {
  const batch = await openBatchFor(tx, callerId, batchId, "mark");
  const entry = (await readQuestions(tx, batch.template_id)).find((candidate) => candidate.question.id === questionId);
  if (!entry) {
    const [question] = await tx.select({ id: examQuestions.id }).from(examQuestions).where(and(eq(examQuestions.id, questionId), eq(examQuestions.template_id, batch.template_id)));
    if (!question) throw notFound("Question");
    throw new AppError("invalid", "Question: it has no tick boxes or answer area to read on the scan", "question_id");
  }
  return { batch, entry };
}

/**
 * A marker decides a tick question's answer for scripts of the batch at once (a group, or one script):
 * each gets the scheme's marks for it, as a teacher's confirmed mark with the answer in its detail,
 * through the mark write's rules (allocation, claims, moderation). All or nothing: a script not of the
 * batch, or a write refused, and nothing is written.
 */
export async function setAnswer(db: Db, callerId: string, input: z.output<typeof setAnswerInput>): Promise<z.output<typeof setAnswerOutput>> {
  const submissionIds = [...new Set(input.submission_ids.map((id) => id.toLowerCase()))];
  const { entry } = await asUser(db, callerId, async (tx) => {
    const found = await questionToMark(tx, callerId, input.batch_id, input.question_id);
    if (found.entry.kind !== "ticks") throw new AppError("invalid", `Question ${found.entry.question.label}: it has no tick boxes; give its mark on the marking screen`, "question_id");
    const labels = new Set(boxLabelsOf(found.entry.areas));
    const unknown = input.answer.find((label) => !labels.has(label));
    if (unknown) throw new AppError("invalid", `Answer: question ${found.entry.question.label} has no box ${unknown}`, "answer");
    if (!schemeOf(found.entry.question)) {
      throw new AppError("invalid", `Question ${found.entry.question.label}: its mark scheme says no right box yet; choose it in the template first`, "question_id");
    }
    await scriptsOfBatch(tx, found.batch.id, submissionIds);
    return found;
  });
  const scheme = schemeOf(entry.question)!;
  const answer = [...new Set(input.answer)].sort();
  const marks = multipleChoiceMarks(scheme, Number(entry.question.max_marks ?? 0), answer);
  const writes: MarkUpsert[] = submissionIds.map((submissionId) => ({
    mark_id: randomUUID(),
    body: { submission_id: submissionId, question_id: entry.question.id, awarded_marks: marks, mark_scheme_detail: { type: MULTIPLE_CHOICE, answer }, confirmed: true },
  }));
  const written = await upsertMarksAllOrNothing(db, callerId, writes);
  return { marked: written.length };
}

/** Refuses, naming none of them, when any of the scripts is not one of the batch's (as the caller sees it). */
async function scriptsOfBatch(tx: Tx, batchId: string, submissionIds: string[]) {
  const found = await tx
    .select({ id: examSubmissions.id })
    .from(examSubmissions)
    .where(and(eq(examSubmissions.batch_id, batchId), inArray(examSubmissions.id, submissionIds)));
  if (found.length !== submissionIds.length) {
    const missing = submissionIds.length - found.length;
    throw new AppError(
      "invalid",
      `Scripts: ${missing === 1 ? "one of the scripts given is" : `${missing} of the scripts given are`} not in this batch; nothing was marked`,
      "submission_ids",
    );
  }
}

/**
 * Every script whose areas of a written question all read blank, and that has no mark for it yet (or
 * only an automatic one), gets 0 as a teacher's confirmed mark: the marker's one key for the blanks.
 * All or nothing, through the mark write's rules.
 */
export async function zeroBlanks(db: Db, callerId: string, input: z.output<typeof zeroBlanksInput>): Promise<z.output<typeof zeroBlanksOutput>> {
  const { entry, blanks } = await asUser(db, callerId, async (tx) => {
    const found = await questionToMark(tx, callerId, input.batch_id, input.question_id);
    if (found.entry.kind !== "written") throw new AppError("invalid", `Question ${found.entry.question.label}: its answers are tick boxes, not written`, "question_id");
    const { readings, markOf } = await readingsAndMarks(tx, { batchId: found.batch.id });
    const bySubmission = new Map<string, Reading[]>();
    for (const reading of readings) if (reading.question_id === found.entry.question.id) bySubmission.set(reading.submission_id, [...(bySubmission.get(reading.submission_id) ?? []), reading]);
    const blanks = [...bySubmission]
      .filter(([submissionId, own]) => own.every((reading) => reading.blank === "blank") && markOf.get(`${submissionId}/${found.entry.question.id}`)?.marked_by !== "teacher")
      .map(([submissionId]) => submissionId);
    return { entry: found.entry, blanks };
  });
  const writes: MarkUpsert[] = blanks.map((submissionId) => ({
    mark_id: randomUUID(),
    body: { submission_id: submissionId, question_id: entry.question.id, awarded_marks: 0, confirmed: true },
  }));
  const written = await upsertMarksAllOrNothing(db, callerId, writes);
  return { marked: written.length };
}

/**
 * The marker undoes an automatic mark (ticks or blank) of one script's question: the mark goes, and the
 * readings of the question remember it, so a re-read never writes it again. A teacher's mark is not
 * automatic: nothing is removed (`removed: false`). The batch's writers (the batch gate's mark action).
 */
export async function undoAutomaticMark(db: Db, callerId: string, input: z.output<typeof undoAutomaticMarkInput>): Promise<z.output<typeof undoAutomaticMarkOutput>> {
  const found = await asUser(db, callerId, async (tx) => {
    const [submission] = await tx.select({ batch_id: examSubmissions.batch_id }).from(examSubmissions).where(eq(examSubmissions.id, input.submission_id));
    if (!submission) throw notFound("Submission");
    const batch = await openBatchFor(tx, callerId, submission.batch_id, "mark");
    const [question] = await tx
      .select({ id: examQuestions.id })
      .from(examQuestions)
      .where(and(eq(examQuestions.id, input.question_id), eq(examQuestions.template_id, batch.template_id)));
    if (!question) throw notFound("Question");
    const [mark] = await tx
      .select({ marked_by: examMarkEntries.marked_by })
      .from(examMarkEntries)
      .where(and(eq(examMarkEntries.submission_id, input.submission_id), eq(examMarkEntries.question_id, question.id)));
    if (mark?.marked_by !== "ticks" && mark?.marked_by !== "blank") return null;
    // The readings remember it, as the caller (the policy exam_answer_readings_writer_undo: the batch's writers).
    await tx
      .update(examAnswerReadings)
      .set({ automatic_mark_undone: true })
      .where(and(eq(examAnswerReadings.submission_id, input.submission_id), eq(examAnswerReadings.question_id, question.id)));
    return batch;
  });
  if (!found) return { removed: false };
  // Marks are never deleted by a user (grants.sql): the automatic one goes as the service, never a teacher's.
  const removed = await asService(db, async (tx) => {
    const gone = await tx
      .delete(examMarkEntries)
      .where(and(eq(examMarkEntries.submission_id, input.submission_id), eq(examMarkEntries.question_id, input.question_id), inArray(examMarkEntries.marked_by, ["ticks", "blank"])))
      .returning({ id: examMarkEntries.id });
    if (gone.length > 0) await moveStatus(tx, input.submission_id, found.template_id);
    return gone.length > 0;
  });
  return { removed };
}

/**
 * The batch's setting (its owner): confident blanks given 0 automatically. On, every script already
 * read gets its blanks' zeros; off, the zeros the setting gave go (a teacher's 0 stays).
 */
export async function setAutoZeroBlanks(db: Db, callerId: string, input: z.output<typeof setAutoZeroBlanksInput>): Promise<{ auto_zero_blanks: boolean }> {
  const batch = await asUser(db, callerId, async (tx) => {
    const open = await openBatchFor(tx, callerId, input.batch_id, "change_settings", { lock: true });
    const [updated] = await tx.update(examBatches).set({ auto_zero_blanks: input.auto_zero_blanks }).where(eq(examBatches.id, open.id)).returning();
    if (!updated) throw notFound("Batch");
    return updated;
  });
  await asService(db, async (tx) => {
    await tx.select({ id: examBatches.id }).from(examBatches).where(eq(examBatches.id, batch.id)).for("update");
    const [current] = await tx.select().from(examBatches).where(eq(examBatches.id, batch.id));
    const read = await tx.selectDistinct({ submission_id: examAnswerReadings.submission_id }).from(examAnswerReadings).where(eq(examAnswerReadings.batch_id, batch.id));
    await writeAutomaticMarks(tx, current!, read.map((row) => row.submission_id));
  });
  return { auto_zero_blanks: batch.auto_zero_blanks };
}
