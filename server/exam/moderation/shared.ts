import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { type Tx, rowsOf } from "../../db/client";
import { examModerationSamples, examQuestions, examReconciliations, examSubmissions } from "../../db/schema";
import { AppError, notFound } from "../../errors";
import { decimal } from "../../../lib/rules/input-rules";
import { recordId } from "../../http/record-id";
import { type BatchRow, isHeadOf } from "../batch-gate";
import { findVisibleBatch } from "../batches";

/**
 * Moderation (issue 19, docs/decisions.md "Moderation"): the batch's owner or a department head of its
 * school (a moderator) picks a sample of marked scripts; another member of staff second-marks them
 * blind (the queue carries no first mark); the moderators read the agreement per question and per
 * first marker and the differences above the tolerance, and set the final mark of a difference (both
 * marks kept in exam_reconciliations); a department head signs the batch off, which refuses every
 * write of marks, second marks, samples and reconciliations (409) until a head reopens it.
 *
 * One module per step, each with its schemas and its operations: state.ts (what the moderation page
 * reads), sample.ts, second-marks.ts, agreement.ts (over the pure agreement-stats.ts), reconcile.ts
 * (the differences and their final marks), sign-off.ts (sign-off and reopening). The pairs of first and
 * second marks are pairs.ts; this module holds what several steps share.
 */

export const DEFAULT_TOLERANCE = 1;

/** The tolerance a batch's sample sets, or the default while it has none. */
export const toleranceOf = (sample: { tolerance: string } | undefined): number => (sample ? Number(sample.tolerance) : DEFAULT_TOLERANCE);

export async function sampleTolerance(tx: Tx, batchId: string): Promise<number> {
  const [sample] = await tx.select({ tolerance: examModerationSamples.tolerance }).from(examModerationSamples).where(eq(examModerationSamples.batch_id, batchId));
  return toleranceOf(sample);
}

/** A mark as moderation's inputs take it: a value in hundredths, at least 0. */
export const marks = () => decimal(8, 2, { min: 0 });

export const moderationBatchInput = z.object({ batch_id: recordId("Batch") });

/** The visible batch, if the caller moderates it (its owner or a department head of its school); 403 otherwise. */
export async function moderatorBatch(tx: Tx, callerId: string, batchId: string): Promise<BatchRow> {
  const batch = await findVisibleBatch(tx, batchId);
  if (batch.teacher_id !== callerId && !(await isHeadOf(tx, callerId, batch.institute_id))) {
    throw new AppError("forbidden", "Only the batch's owner or a department head moderates it");
  }
  return batch;
}

/**
 * A visible submission, locked as mark writes lock it (marks.ts): the marks read after it are the
 * committed ones, and a sign-off (which locks every submission of its batch) waits or has committed.
 */
export async function lockedSubmission(tx: Tx, submissionId: string) {
  const [submission] = await tx
    .select({ id: examSubmissions.id, batch_id: examSubmissions.batch_id })
    .from(examSubmissions)
    .where(eq(examSubmissions.id, submissionId))
    .for("update");
  if (!submission) throw notFound("Submission");
  return submission;
}

/** The question a second mark or a final mark is given to: a leaf of the batch's paper, the value within its marks (400 naming `field`). */
export async function leafQuestion(tx: Tx, batch: BatchRow, questionId: string, value: number, field: string) {
  const [question] = await tx.select().from(examQuestions).where(eq(examQuestions.id, questionId.toLowerCase()));
  if (!question) throw notFound("Question");
  if (question.template_id !== batch.template_id) throw new AppError("invalid", "Question: not a question of this batch's paper", "question_id");
  if (question.is_container) throw new AppError("invalid", `Question: question ${question.label} takes no mark itself; mark its parts`, "question_id");
  if (question.max_marks !== null && value > Number(question.max_marks)) {
    throw new AppError("invalid", `Mark: question ${question.label} takes 0 to ${Number(question.max_marks)} marks, not ${value}`, field);
  }
  return question;
}

/** The question's first mark as it stands; 409 while it has no value. */
export async function firstMark(tx: Tx, submissionId: string, question: { id: string; label: string }) {
  const [mark] = rowsOf<{ id: string; awarded_marks: string | null; marked_by_user_id: string | null; mark_scheme_detail: unknown; updated_at: string | Date }>(
    await tx.execute(sql`select id, awarded_marks::text as awarded_marks, marked_by_user_id, mark_scheme_detail, updated_at
      from exam_mark_entries where submission_id = ${submissionId} and question_id = ${question.id}`),
  );
  if (!mark || mark.awarded_marks === null) throw new AppError("conflict", `Question ${question.label} of this script has no first mark yet`);
  return { ...mark, awarded_marks: Number(mark.awarded_marks), updated_at: new Date(mark.updated_at) };
}

export async function reconciliationOf(tx: Tx, submissionId: string, questionId: string) {
  const [row] = await tx
    .select()
    .from(examReconciliations)
    .where(and(eq(examReconciliations.submission_id, submissionId), eq(examReconciliations.question_id, questionId)));
  return row;
}
