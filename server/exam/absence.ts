import { eq } from "drizzle-orm";
import { z } from "zod";
import { recordId } from "../http/record-id";
import type { Tx } from "../db/client";
import { examBatches, examSubmissions } from "../db/schema";
import { AppError, notFound } from "../errors";
import { batchNames, presentSubmission, submissionInMessage } from "./anonymity";
import { submissionOutput } from "./batches";
import { openBatchFor } from "./batch-gate";

/**
 * A teacher's "Mark absent" and its "Undo". The contract's status `absent`
 * (docs/spec/classroom-api.md "States and transitions") is also what every roster
 * student starts with, before any scan: absence_marked_at tells a student the teacher marked absent
 * from one who has no scan yet. See docs/decisions.md, "Absent means a teacher said so".
 */

export const setAbsenceInput = z.object({
  submission_id: recordId("Submission"),
  absent: z.boolean({ error: "Say whether the student was absent (true or false)" }),
});
export const absenceOutput = submissionOutput;

/**
 * Marks the student of a submission absent (`absent: true`) or undoes it, as the caller: a writer of
 * the batch, as for marks (the batch gate, set_absence: 403 for another colleague, 409 when archived or
 * signed off). Idempotent: marking twice keeps the first time. Refused with 409 when the submission has a scan (the student sat the paper), has marks, or is
 * a scan without a student. The row is locked, so an upload arriving at the same time waits; and the
 * database clears the absence when a scan or a mark arrives later (app.clear_absence_when_present,
 * server/db/sql/functions/clear_absence_when_present.sql).
 */
export async function setAbsence(tx: Tx, callerId: string, input: z.input<typeof setAbsenceInput>) {
  const { submission_id: submissionId, absent } = setAbsenceInput.parse(input);
  const [submission] = await tx.select().from(examSubmissions).where(eq(examSubmissions.id, submissionId)).for("update");
  if (!submission) throw notFound("Submission");
  // A student reads their own submission but not its batch: for them it is not there.
  const [batch] = await tx.select().from(examBatches).where(eq(examBatches.id, submission.batch_id));
  if (!batch) throw notFound("Submission");
  await openBatchFor(tx, callerId, batch, "set_absence");
  const names = batchNames(batch);
  const who = submissionInMessage(submission, names, "This script");
  if (!absent) {
    if (submission.absence_marked_at === null) return presentSubmission(submission, names);
    return presentSubmission(await update(tx, submissionId, null), names);
  }
  if (!submission.student_id) throw new AppError("conflict", "A scan without a student cannot be marked absent: assign it to a student first");
  if (submission.scan_url) throw new AppError("conflict", `${who} has a scan, so they were not absent`);
  if (submission.status !== "absent") throw new AppError("conflict", `${who} already has marks, so they were not absent`);
  if (submission.absence_marked_at !== null) return presentSubmission(submission, names);
  return presentSubmission(await update(tx, submissionId, new Date()), names);
}

async function update(tx: Tx, submissionId: string, markedAt: Date | null) {
  const [updated] = await tx
    .update(examSubmissions)
    .set({ absence_marked_at: markedAt, updated_at: new Date() })
    .where(eq(examSubmissions.id, submissionId))
    .returning();
  if (!updated) throw notFound("Submission");
  return updated;
}
