import { and, asc, eq, inArray, sql } from "drizzle-orm";
import { hasTickBoxes, MULTIPLE_CHOICE, multipleChoiceMarks } from "../../../lib/rules/tick-boxes";
import { type Tx, rowsOf } from "../../db/client";
import { examAnswerReadings, examBatches, examMarkEntries, examQuestions, examResponseAreas, examSubmissions } from "../../db/schema";
import type { AreasReading } from "../ticks/reading";

/**
 * Readings kept and automatic marks written (issue 36), as the service, inside the caller's
 * transaction: the reading job's, and the batch setting's. The rules (docs/decisions/marking-quality.md, "Answers read from the scan, on the server"):
 * - a tick question whose every tick area was read and decided gets multipleChoiceMarks, marked_by
 *   'ticks', detail `{type: "multiple_choice", answer}`;
 * - a written question whose every area reads blank gets 0, marked_by 'blank', when the batch gives
 *   confident blanks 0 (exam_batches.auto_zero_blanks);
 * - an automatic mark no longer due (undecided now, written, the setting off, the page gone) is removed;
 * - a teacher's mark is never touched, and a question whose automatic mark the marker undid gets none;
 * - an archived or signed-off batch's marks are not touched (as a mark write is refused there).
 * Automatic marks are confirmed, with no user; the script's status follows, as after a mark write.
 */

type Batch = Pick<typeof examBatches.$inferSelect, "id" | "template_id" | "auto_zero_blanks" | "status" | "signed_off">;
type Reading = typeof examAnswerReadings.$inferSelect;

/** One page of a script read: where it sits in the script, and what readAreas answered (areas by response area id). */
export interface ScriptPageReading {
  pageNumber: number;
  reading: AreasReading;
}

/**
 * Replaces a script's readings with those of its pages now (the areas not read any more go), keeping
 * which questions' automatic marks the marker undid, then writes the script's automatic marks. The
 * submission is locked first: two readings of one script (a move while a pile files) apply in turn.
 */
export async function replaceScriptReadings(tx: Tx, submissionId: string, pages: ScriptPageReading[]): Promise<void> {
  const [submission] = await tx.select({ batch_id: examSubmissions.batch_id }).from(examSubmissions).where(eq(examSubmissions.id, submissionId)).for("no key update");
  if (!submission) return;
  const [batch] = await tx
    .select({ id: examBatches.id, template_id: examBatches.template_id, auto_zero_blanks: examBatches.auto_zero_blanks, status: examBatches.status, signed_off: examBatches.signed_off })
    .from(examBatches)
    .where(eq(examBatches.id, submission.batch_id));
  const areas = await tx
    .select({ id: examResponseAreas.id, question_id: examResponseAreas.question_id })
    .from(examResponseAreas)
    .where(eq(examResponseAreas.template_id, batch!.template_id));
  const questionOf = new Map(areas.map((area) => [area.id, area.question_id]));
  const undone = new Set(
    (
      await tx
        .selectDistinct({ question_id: examAnswerReadings.question_id })
        .from(examAnswerReadings)
        .where(and(eq(examAnswerReadings.submission_id, submissionId), eq(examAnswerReadings.automatic_mark_undone, true)))
    ).map((row) => row.question_id),
  );
  const rows: (typeof examAnswerReadings.$inferInsert)[] = [];
  for (const { pageNumber, reading } of pages) {
    const common = { batch_id: batch!.id, submission_id: submissionId, page_number: pageNumber, alignment: reading.alignment.by };
    for (const area of reading.tickAreas) {
      const question = questionOf.get(area.id);
      if (!question) continue;
      rows.push({
        ...common,
        question_id: question,
        response_area_id: area.id,
        kind: "ticks",
        answer: area.answer,
        blank: null,
        measurements: { boxes: area.boxes.map(({ label, state, ink, filled }) => ({ label, state, ink: round(ink), filled })), ...(area.reason ? { reason: area.reason } : {}) },
        automatic_mark_undone: undone.has(question),
      });
    }
    for (const area of reading.writtenAreas) {
      const question = questionOf.get(area.id);
      if (!question) continue;
      rows.push({
        ...common,
        question_id: question,
        response_area_id: area.id,
        kind: "written",
        answer: null,
        blank: area.blank,
        measurements: { ink: round(area.ink), ...(area.reason ? { reason: area.reason } : {}) },
        automatic_mark_undone: undone.has(question),
      });
    }
  }
  await tx.delete(examAnswerReadings).where(eq(examAnswerReadings.submission_id, submissionId));
  // An area read on two pages of one script (a page filed twice by hand): the later page's reading.
  const byArea = new Map(rows.map((row) => [row.response_area_id, row]));
  if (byArea.size > 0) await tx.insert(examAnswerReadings).values([...byArea.values()]);
  await writeAutomaticMarks(tx, batch!, [submissionId]);
}

const round = (value: number) => Math.round(value * 10000) / 10000;

/**
 * Brings the automatic marks of some scripts of a batch in line with their readings and the batch's
 * setting now (see the rules above), and their statuses with them.
 */
export async function writeAutomaticMarks(tx: Tx, batch: Batch, submissionIds: string[]): Promise<void> {
  // An archived or signed-off batch takes no marks, automatic ones neither (its readings are kept all the same).
  if (submissionIds.length === 0 || batch.status === "archived" || batch.signed_off) return;
  const questions = await tx
    .select({ id: examQuestions.id, max_marks: examQuestions.max_marks, mark_scheme: examQuestions.mark_scheme, is_container: examQuestions.is_container })
    .from(examQuestions)
    .where(eq(examQuestions.template_id, batch.template_id));
  const areas = await tx
    .select({ id: examResponseAreas.id, question_id: examResponseAreas.question_id, tick_boxes: examResponseAreas.tick_boxes })
    .from(examResponseAreas)
    .where(and(eq(examResponseAreas.template_id, batch.template_id), eq(examResponseAreas.kind, "response")))
    .orderBy(asc(examResponseAreas.id));
  const readings = await tx.select().from(examAnswerReadings).where(inArray(examAnswerReadings.submission_id, submissionIds));
  const marks = await tx
    .select({ submission_id: examMarkEntries.submission_id, question_id: examMarkEntries.question_id, marked_by: examMarkEntries.marked_by })
    .from(examMarkEntries)
    .where(inArray(examMarkEntries.submission_id, submissionIds));
  const markedBy = new Map(marks.map((mark) => [`${mark.submission_id}/${mark.question_id}`, mark.marked_by]));
  const readingOf = new Map(readings.map((reading) => [`${reading.submission_id}/${reading.response_area_id}`, reading]));
  const touched = new Set<string>();

  for (const submissionId of submissionIds) {
    for (const question of questions) {
      if (question.is_container) continue;
      const own = areas.filter((area) => area.question_id === question.id);
      const tickAreas = own.filter(hasTickBoxes);
      const kind = tickAreas.length > 0 ? "ticks" : "written";
      const read = (kind === "ticks" ? tickAreas : own).map((area) => readingOf.get(`${submissionId}/${area.id}`));
      const existing = markedBy.get(`${submissionId}/${question.id}`);
      if (existing === "teacher") continue;
      const due = own.length > 0 && read.every((reading): reading is Reading => reading !== undefined) ? dueMark(kind, question, read, batch) : null;
      if (due && !read.some((reading) => reading?.automatic_mark_undone)) {
        await tx
          .insert(examMarkEntries)
          .values({
            submission_id: submissionId,
            question_id: question.id,
            batch_id: batch.id,
            awarded_marks: due.marks.toFixed(2),
            mark_scheme_detail: due.detail,
            confirmed: true,
            marked_by: due.by,
            marked_by_user_id: null,
          })
          .onConflictDoUpdate({
            target: [examMarkEntries.submission_id, examMarkEntries.question_id],
            set: {
              awarded_marks: sql`excluded.awarded_marks`,
              mark_scheme_detail: sql`excluded.mark_scheme_detail`,
              confirmed: true,
              marked_by: sql`excluded.marked_by`,
              marked_by_user_id: null,
              updated_at: sql`now()`,
            },
            // Never over a teacher's mark, even one written since this transaction read the marks.
            setWhere: sql`${examMarkEntries.marked_by} <> 'teacher'`,
          });
        touched.add(submissionId);
      } else if (existing === "ticks" || existing === "blank") {
        await tx
          .delete(examMarkEntries)
          .where(and(eq(examMarkEntries.submission_id, submissionId), eq(examMarkEntries.question_id, question.id), inArray(examMarkEntries.marked_by, ["ticks", "blank"])));
        touched.add(submissionId);
      }
    }
  }
  for (const submissionId of touched) await moveStatus(tx, submissionId, batch.template_id);
}

/** The automatic mark a question's readings call for, if any. */
function dueMark(
  kind: "ticks" | "written",
  question: { max_marks: string | null; mark_scheme: { type: string; [key: string]: unknown } | null },
  read: Reading[],
  batch: Batch,
): { marks: number; detail: unknown; by: "ticks" | "blank" } | null {
  if (kind === "ticks") {
    const scheme = question.mark_scheme;
    if (scheme?.type !== MULTIPLE_CHOICE || !Array.isArray(scheme.correct)) return null;
    if (read.some((reading) => reading.answer === null)) return null;
    const answer = [...new Set(read.flatMap((reading) => reading.answer ?? []))].sort();
    const correct = scheme.correct.filter((label): label is string => typeof label === "string");
    return { marks: multipleChoiceMarks({ correct }, Number(question.max_marks ?? 0), answer), detail: { type: MULTIPLE_CHOICE, answer }, by: "ticks" };
  }
  if (!batch.auto_zero_blanks || !read.every((reading) => reading.blank === "blank")) return null;
  return { marks: 0, detail: null, by: "blank" };
}

/**
 * The submission's status after its marks changed, by the mark write's rule (marks.ts): complete when
 * every leaf question has a confirmed mark with a value; otherwise absent, unmatched and complete become
 * marking, and the other statuses stay. Counted here as the service (app.submission_progress counts for
 * staff callers only).
 */
export async function moveStatus(tx: Tx, submissionId: string, templateId: string): Promise<void> {
  const [row] = rowsOf<{ status: string; leaves: number; confirmed: number }>(
    await tx.execute(sql`select s.status::text as status,
        (select count(*)::int from exam_questions q where q.template_id = ${templateId} and not q.is_container) as leaves,
        (select count(*)::int from exam_mark_entries m join exam_questions q on q.id = m.question_id
          where m.submission_id = s.id and q.template_id = ${templateId} and not q.is_container and m.confirmed and m.awarded_marks is not null) as confirmed
      from exam_submissions s where s.id = ${submissionId}`),
  );
  if (!row) return;
  const next = row.leaves > 0 && row.confirmed === row.leaves ? "complete" : ["absent", "unmatched", "complete"].includes(row.status) ? "marking" : row.status;
  if (next !== row.status) {
    await tx
      .update(examSubmissions)
      .set({ status: next as typeof examSubmissions.$inferSelect.status, updated_at: new Date() })
      .where(eq(examSubmissions.id, submissionId));
  }
}
