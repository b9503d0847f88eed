import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import type { Tx } from "../../db/client";
import { examReconciliations, examSecondMarks } from "../../db/schema";
import { AppError } from "../../errors";
import { recordId } from "../../http/record-id";
import { openBatchFor } from "../batch-gate";
import { differenceOf, differenceRow, differencesAbove, pairsOfBatch } from "./pairs";
import { firstMark, leafQuestion, lockedSubmission, marks, moderationBatchInput, moderatorBatch, reconciliationOf, sampleTolerance } from "./shared";

/** Reconciliation: the differences above the tolerance, and the final mark a moderator sets for one. */

const reconcileBody = z.object({ question_id: z.uuid("question_id must be a question id"), final_marks: marks() });
export const reconcileInput = z.object({ submission_id: recordId("Submission"), body: reconcileBody });

export const differencesOutput = z.object({ batch_id: z.uuid(), tolerance: z.number(), differences: z.array(differenceRow) });
export const reconciliationOutput = differenceRow;

/** GET /api/exam/batches/{batch_id}/moderation/differences (moderators): pairs differing by more than the tolerance, reconciled or not. */
export async function listDifferences(tx: Tx, callerId: string, input: z.input<typeof moderationBatchInput>): Promise<z.output<typeof differencesOutput>> {
  const { batch_id: batchId } = moderationBatchInput.parse(input);
  await moderatorBatch(tx, callerId, batchId);
  const tolerance = await sampleTolerance(tx, batchId);
  return { batch_id: batchId, tolerance, differences: await differencesAbove(tx, batchId, tolerance) };
}

/**
 * POST /api/exam/submissions/{submission_id}/reconcile (moderators): the final mark of a second-marked
 * pair. The first mark's value, marker and time before it and the second mark are kept in
 * exam_reconciliations (a later reconcile of the pair changes only the final mark); the mark itself
 * takes the final value, as the moderator's (a rubric detail that no longer sums to it is dropped, as a
 * typed mark does in marks.ts).
 */
export async function reconcileMark(tx: Tx, callerId: string, input: z.input<typeof reconcileInput>): Promise<z.output<typeof reconciliationOutput>> {
  const { submission_id: submissionId, body } = reconcileInput.parse(input);
  const submission = await lockedSubmission(tx, submissionId);
  const batch = await moderatorBatch(tx, callerId, submission.batch_id);
  await openBatchFor(tx, callerId, batch, "reconcile");
  const question = await leafQuestion(tx, batch, body.question_id, body.final_marks, "final_marks");
  const [second] = await tx
    .select()
    .from(examSecondMarks)
    .where(and(eq(examSecondMarks.submission_id, submissionId), eq(examSecondMarks.question_id, question.id)));
  if (!second) throw new AppError("conflict", `Question ${question.label} of this script has no second mark to reconcile`);
  const final = body.final_marks.toFixed(2);
  const existing = await reconciliationOf(tx, submissionId, question.id);
  if (existing) {
    await tx.update(examReconciliations).set({ final_marks: final, reconciled_by: callerId, reconciled_at: sql`now()` }).where(eq(examReconciliations.id, existing.id));
  } else {
    const first = await firstMark(tx, submissionId, question);
    await tx.insert(examReconciliations).values({
      batch_id: batch.id,
      submission_id: submissionId,
      question_id: question.id,
      first_marks: first.awarded_marks.toFixed(2),
      first_marker_id: first.marked_by_user_id,
      first_marked_at: first.updated_at,
      second_marks: second.awarded_marks,
      final_marks: final,
      reconciled_by: callerId,
    });
  }
  await tx.execute(sql`update exam_mark_entries set
      mark_scheme_detail = case when mark_scheme_detail ->> 'type' = 'rubric' and awarded_marks is distinct from ${final}::numeric then null else mark_scheme_detail end,
      awarded_marks = ${final}::numeric, marked_by = 'teacher', marked_by_user_id = ${callerId}::uuid, updated_at = now()
    where submission_id = ${submissionId} and question_id = ${question.id}`);
  const row = (await pairsOfBatch(tx, batch.id)).find((pair) => pair.submission_id === submissionId && pair.question_id === question.id);
  return differenceOf(row!);
}
