import { and, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { type Tx, rowsOf } from "../../db/client";
import { examModerationScripts, examQuestions, examReconciliations, examSecondMarks, examSubmissions } from "../../db/schema";
import { AppError } from "../../errors";
import { recordId } from "../../http/record-id";
import { scriptLabel } from "../anonymity";
import { openBatchFor } from "../batch-gate";
import { findVisibleBatch } from "../batches";
import { scanPageNumbers } from "../scan-page-numbers";
import { firstMark, leafQuestion, lockedSubmission, marks, moderationBatchInput, reconciliationOf } from "./shared";

/** Blind second marking: the caller's queue of sampled scripts without their first marks, and the second mark of one question. */

const secondMarkBody = z.object({ question_id: z.uuid("question_id must be a question id"), awarded_marks: marks() });
export const secondMarkInput = z.object({ submission_id: recordId("Submission"), body: secondMarkBody });

export const secondMarkOutput = z.object({
  id: z.uuid(),
  submission_id: z.uuid(),
  question_id: z.uuid(),
  marker_id: z.uuid().nullable(),
  awarded_marks: z.number(),
  updated_at: z.date(),
});

export const secondMarkingQueueOutput = z.object({
  batch_id: z.uuid(),
  batch_title: z.string(),
  template_id: z.uuid().describe("The paper: its questions, mark schemes, rubrics and answer areas"),
  scripts: z.array(
    z.object({
      submission_id: z.uuid(),
      script_label: z.string(),
      scan_page_numbers: z
        .array(z.number().int())
        .nullable()
        .describe("The paper's page number of each page of the scan, in order; null for a scan uploaded on its own, read in order from page 1"),
      questions: z.array(
        z.object({
          question_id: z.uuid(),
          label: z.string(),
          max_marks: z.number().nullable(),
          second_marks: z.number().nullable().describe("The caller's own second mark, if given"),
        }),
      ),
    }),
  ),
});

/**
 * GET /api/exam/batches/{batch_id}/moderation/queue: the caller's second marking, blind: each sampled
 * script (by its number only) with the questions that have a first mark by someone else, and the
 * caller's own second mark. No first mark, comment, first marker or student name is in it.
 */
export async function getSecondMarkingQueue(tx: Tx, callerId: string, input: z.input<typeof moderationBatchInput>): Promise<z.output<typeof secondMarkingQueueOutput>> {
  const { batch_id: batchId } = moderationBatchInput.parse(input);
  const batch = await findVisibleBatch(tx, batchId);
  const rows = rowsOf<{ submission_id: string; script_number: number; question_id: string; label: string; max_marks: string | null; second_marks: string | null }>(
    await tx.execute(sql`select s.id as submission_id, s.script_number, q.id as question_id, q.label, q.max_marks::text as max_marks,
        sm.awarded_marks::text as second_marks
      from ${examModerationScripts} ms
      join ${examSubmissions} s on s.id = ms.submission_id
      join exam_mark_entries m on m.submission_id = s.id and m.awarded_marks is not null
        and m.marked_by_user_id is distinct from ${callerId}::uuid
      join ${examQuestions} q on q.id = m.question_id
      left join ${examSecondMarks} sm on sm.submission_id = s.id and sm.question_id = q.id
      where ms.batch_id = ${batchId} and (sm.id is null or sm.marker_id = ${callerId}::uuid)
        and not exists (select 1 from ${examReconciliations} r where r.submission_id = s.id and r.question_id = q.id)
      order by s.script_number, q."order", q.label`),
  );
  const scripts = new Map<string, z.output<typeof secondMarkingQueueOutput>["scripts"][number]>();
  for (const row of rows) {
    let script = scripts.get(row.submission_id);
    if (!script) {
      script = { submission_id: row.submission_id, script_label: scriptLabel(row.script_number), scan_page_numbers: await scanPageNumbers(tx, row.submission_id), questions: [] };
      scripts.set(row.submission_id, script);
    }
    script.questions.push({
      question_id: row.question_id,
      label: row.label,
      max_marks: row.max_marks === null ? null : Number(row.max_marks),
      second_marks: row.second_marks === null ? null : Number(row.second_marks),
    });
  }
  return { batch_id: batchId, batch_title: batch.title, template_id: batch.template_id, scripts: [...scripts.values()] };
}

/**
 * POST /api/exam/submissions/{submission_id}/second-marks: the caller's blind second mark of one
 * question of a sampled script. Refused: 404 outside the school; 409 archived, signed off, not in the
 * sample, no first mark yet, already second-marked by a colleague, or already reconciled; 403 to the
 * first mark's own marker; 400 for a question not a leaf of the paper or a value outside 0..max.
 */
export async function saveSecondMark(tx: Tx, callerId: string, input: z.input<typeof secondMarkInput>): Promise<z.output<typeof secondMarkOutput>> {
  const { submission_id: submissionId, body } = secondMarkInput.parse(input);
  const submission = await lockedSubmission(tx, submissionId);
  const batch = await findVisibleBatch(tx, submission.batch_id);
  await openBatchFor(tx, callerId, batch, "second_mark");
  const question = await leafQuestion(tx, batch, body.question_id, body.awarded_marks, "awarded_marks");
  const [inSample] = await tx
    .select({ id: examModerationScripts.submission_id })
    .from(examModerationScripts)
    .where(eq(examModerationScripts.submission_id, submissionId));
  if (!inSample) throw new AppError("conflict", "This script is not in the batch's moderation sample");
  const first = await firstMark(tx, submissionId, question);
  if (first.marked_by_user_id === callerId) throw new AppError("forbidden", "You gave the first mark: a second mark must come from another marker");
  const [existing] = await tx
    .select()
    .from(examSecondMarks)
    .where(and(eq(examSecondMarks.submission_id, submissionId), eq(examSecondMarks.question_id, question.id)));
  if (existing && existing.marker_id !== callerId) throw new AppError("conflict", `Question ${question.label} of this script is already second-marked by a colleague`);
  if (await reconciliationOf(tx, submissionId, question.id)) throw new AppError("conflict", `Question ${question.label} of this script is already reconciled`);
  const awarded = body.awarded_marks.toFixed(2);
  const [saved] = existing
    ? await tx.update(examSecondMarks).set({ awarded_marks: awarded, updated_at: sql`now()` }).where(eq(examSecondMarks.id, existing.id)).returning()
    : await tx
        .insert(examSecondMarks)
        .values({ batch_id: batch.id, submission_id: submissionId, question_id: question.id, marker_id: callerId, awarded_marks: awarded })
        .returning();
  return { ...saved!, awarded_marks: Number(saved!.awarded_marks) };
}
