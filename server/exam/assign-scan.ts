import { and, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import { recordId } from "../http/record-id";
import type { Tx } from "../db/client";
import { examBatches, examMarkEntries, examQuestions, examScanPages, examSubmissions, instituteMemberships, users } from "../db/schema";
import { AppError, notFound } from "../errors";
import { batchNames, presentSubmission, scriptLabel } from "./anonymity";
import { queueAnswerReading } from "./answer-reading-queue";
import { submissionOutput } from "./batches";
import { type SubmissionStatus, statusAfterMark } from "./marks";
import { UNIQUE_VIOLATION, postgresErrorCode } from "../postgres-errors";
import { env } from "../env";
import { intakeImaging } from "./intake/imaging-port";
import { type IntakeWriteOptions, filedPagesOf } from "./intake/move-page";
import { rebuildSubmissionScan, withStoredObjects } from "./intake/script-pdf";
import { objectStorage } from "../storage/configured-storage";
import { openBatchFor } from "./batch-gate";

const assignScanBody = z.object({ student_id: z.uuid("student_id must be a student's user id") });
export const assignScanInput = assignScanBody.extend({ submission_id: recordId("Submission") });
export const assignScanOutput = submissionOutput;

type SubmissionRow = typeof examSubmissions.$inferSelect;
type BatchRow = typeof examBatches.$inferSelect;

/**
 * Gives an unmatched scan (a submission without a student) to a student, afterwards:
 * 1. the scan's submission is visible with its batch (404); the batch gate (assign_scan): the caller
 *    owns the batch (403, as for scan upload), it is neither archived nor signed off (409); and the submission has no student and has a scan (409);
 * 2. the student's roster slot in the batch must have no scan yet (409, nothing is overwritten), and the
 *    two may not both hold a mark for the same question (409);
 * 3. the scan fields (matching_method manual) and every mark move to the slot, the student-less row is
 *    deleted, and the slot's status is recomputed with the marks rule;
 * 4. a student of the batch's school without a slot (not on the roster) gets the scan's own row;
 * 5. a script made of scanned pile pages (class-set intake) moves page by page instead: the slot may
 *    have pile pages of its own but no scan uploaded on its own (409), and no position twice (409,
 *    naming the pages); the slot's scan is rebuilt from all its pages.
 * One transaction as the caller: a refusal or a failure leaves everything as it was. Both rows are
 * locked, the scan first, so a second assignment of the same scan finds it gone (404) and a second
 * scan for the same slot finds the slot scanned (409).
 */
export async function assignScan(tx: Tx, callerId: string, input: z.input<typeof assignScanInput>, options: IntakeWriteOptions = {}) {
  const { assigned, batch } = await assignScanRow(tx, callerId, input, options);
  // In an anonymous batch the reply names the script, not the student, as every read of it does.
  return presentSubmission(assigned, batchNames(batch));
}

async function assignScanRow(tx: Tx, callerId: string, input: z.input<typeof assignScanInput>, options: IntakeWriteOptions): Promise<{ assigned: SubmissionRow; batch: BatchRow }> {
  const { submission_id: submissionId, student_id: studentId } = assignScanInput.parse(input);
  const [found] = await tx
    .select({ scan: examSubmissions, batch: examBatches })
    .from(examSubmissions)
    .innerJoin(examBatches, eq(examBatches.id, examSubmissions.batch_id))
    .where(eq(examSubmissions.id, submissionId))
    .for("update", { of: examSubmissions });
  if (!found) throw notFound("Submission");
  const { scan, batch } = found;
  await openBatchFor(tx, callerId, batch, "assign_scan");
  if (scan.student_id !== null) throw new AppError("conflict", "This submission already belongs to a student: only an unmatched scan can be assigned");
  if (scan.scan_url === null) throw new AppError("conflict", "This submission has no scan to assign");

  const [slot] = await tx
    .select()
    .from(examSubmissions)
    .where(and(eq(examSubmissions.batch_id, batch.id), eq(examSubmissions.student_id, studentId)))
    .for("update");
  if (!slot) return { assigned: await giveScanRowToStudent(tx, scan, batch, studentId), batch };
  const pilePages = await filedPagesOf(tx, scan.id);
  if (pilePages.length > 0) return { assigned: await givePilePagesToSlot(tx, { scan, slot, batch, callerId, pilePages }, options), batch };
  if (slot.scan_url !== null) {
    throw new AppError("conflict", `${studentInMessage(slot, batch)} already has a scan: it is not replaced by an assignment`);
  }
  await refuseConflictingMarks(tx, scan.id, slot.id);

  await carryMarksToSlot(tx, scan.id, slot.id, batch);
  const deleted = await tx.delete(examSubmissions).where(eq(examSubmissions.id, scan.id)).returning({ id: examSubmissions.id });
  if (deleted.length !== 1) throw new AppError("internal", "The unmatched scan could not be removed");
  const status = await statusAfterMark(tx, slot.id, batch.template_id, carriedStatus(slot.status, scan.status));
  const [assigned] = await tx
    .update(examSubmissions)
    .set({
      scan_url: scan.scan_url,
      scan_file_id: scan.scan_file_id,
      qr_code: scan.qr_code,
      matching_method: "manual",
      page_count: scan.page_count,
      status,
      updated_at: new Date(),
    })
    .where(eq(examSubmissions.id, slot.id))
    .returning();
  if (!assigned) throw new AppError("internal", "The scan could not be assigned");
  return { assigned, batch };
}

/**
 * The scan's marks move to the student's submission, with which automatic marks the marker undid on it;
 * its readings go with its row, and the student's script is read again (server/exam/answers/read-job.ts).
 */
async function carryMarksToSlot(tx: Tx, scanId: string, slotId: string, batch: Parameters<typeof queueAnswerReading>[1]) {
  await tx.update(examMarkEntries).set({ submission_id: slotId }).where(eq(examMarkEntries.submission_id, scanId));
  await tx.execute(sql`select app.carry_undone_automatic_marks(${scanId}, ${slotId})`);
  await queueAnswerReading(tx, batch, [slotId]);
}

/** Rule 5: a script of pile pages identified as a roster student's, merged page by page into their submission. */
async function givePilePagesToSlot(
  tx: Tx,
  { scan, slot, batch, callerId, pilePages }: { scan: SubmissionRow; slot: SubmissionRow; batch: BatchRow; callerId: string; pilePages: { page_number: number | null }[] },
  options: IntakeWriteOptions,
): Promise<SubmissionRow> {
  const name = studentInMessage(slot, batch);
  const slotPages = await filedPagesOf(tx, slot.id);
  if (slot.scan_url !== null && slotPages.length === 0) {
    throw new AppError("conflict", `${name} already has a scan uploaded on its own: it is not replaced by an assignment`);
  }
  const held = new Set(slotPages.map((page) => page.page_number));
  const clashes = pilePages.map((page) => page.page_number!).filter((position) => held.has(position));
  if (clashes.length > 0) {
    const pages = clashes.length === 1 ? `page ${clashes[0]}` : `pages ${clashes.slice(0, -1).join(", ")} and ${clashes.at(-1)}`;
    const script = batch.anonymous ? name : `${name}'s script`;
    throw new AppError("conflict", `${script} already has ${pages}: move the pages that do not belong there first`);
  }
  await refuseConflictingMarks(tx, scan.id, slot.id);

  await carryMarksToSlot(tx, scan.id, slot.id, batch);
  await tx.update(examScanPages).set({ submission_id: slot.id, updated_at: new Date() }).where(eq(examScanPages.submission_id, scan.id));
  // A spare copy's printed script loses its submission with the row below: its later pages find the
  // student's through the pages moved here (server/exam/intake/filing.ts).
  const deleted = await tx.delete(examSubmissions).where(eq(examSubmissions.id, scan.id)).returning({ id: examSubmissions.id });
  if (deleted.length !== 1) throw new AppError("internal", "The unmatched scan could not be removed");

  await withStoredObjects(options.storage ?? objectStorage(), (stored) =>
    rebuildSubmissionScan(tx, slot.id, {
      assembleScript: (options.imaging ?? intakeImaging()).assembleScript,
      stored,
      bucket: options.bucket ?? env().SCAN_BUCKET,
      instituteId: batch.institute_id,
      ownerId: callerId,
    }),
  );
  const status = await statusAfterMark(tx, slot.id, batch.template_id, carriedStatus(slot.status, scan.status));
  const [assigned] = await tx
    .update(examSubmissions)
    .set({ qr_code: slot.qr_code ?? scan.qr_code, matching_method: "manual", status, updated_at: new Date() })
    .where(eq(examSubmissions.id, slot.id))
    .returning();
  if (!assigned) throw new AppError("internal", "The scan could not be assigned");
  return assigned;
}

/**
 * A student who is not on the batch's roster (joined the class late, sat the paper with another class):
 * the scan's own row becomes theirs, if they are a student of the batch's school. One message whatever
 * the reason, as for adding a student to a class, so nothing is learnt about other schools.
 */
async function giveScanRowToStudent(tx: Tx, scan: SubmissionRow, batch: BatchRow, studentId: string): Promise<SubmissionRow> {
  const [student] = await tx
    .select({ full_name: users.full_name })
    .from(instituteMemberships)
    .innerJoin(users, eq(users.id, instituteMemberships.user_id))
    .where(and(eq(instituteMemberships.institute_id, batch.institute_id), eq(instituteMemberships.user_id, studentId), eq(instituteMemberships.role, "student")))
    .limit(1);
  if (!student) throw new AppError("invalid", "Student: not a student of this batch's school", "student_id");
  const status = await statusAfterMark(tx, scan.id, batch.template_id, carriedStatus(scan.status));
  try {
    const [assigned] = await tx
      .update(examSubmissions)
      .set({ student_id: studentId, student_name: student.full_name, matching_method: "manual", status, updated_at: new Date() })
      .where(eq(examSubmissions.id, scan.id))
      .returning();
    if (!assigned) throw new AppError("internal", "The scan could not be assigned");
    return assigned;
  } catch (error) {
    // Another scan was given to the same student at the same moment.
    if (postgresErrorCode(error) === UNIQUE_VIOLATION) {
      throw new AppError("conflict", `${batch.anonymous ? "This student" : student.full_name} already has a submission in this batch`);
    }
    throw error;
  }
}

/**
 * The student's submission in a refusal: their name, or in an anonymous batch its script's number
 * (issue 32: no message of an anonymous batch names a student, the owner's included).
 */
function studentInMessage(slot: SubmissionRow, batch: BatchRow): string {
  return batch.anonymous ? scriptLabel(slot.script_number) : (slot.student_name ?? "This student");
}

/** The slot and the scan may each hold marks (an absent student can be marked); never two for one question. */
async function refuseConflictingMarks(tx: Tx, scanId: string, slotId: string) {
  const clashes = await tx
    .select({ label: examQuestions.label })
    .from(examMarkEntries)
    .innerJoin(examQuestions, eq(examQuestions.id, examMarkEntries.question_id))
    .where(inArray(examMarkEntries.submission_id, [scanId, slotId]))
    .groupBy(examQuestions.id, examQuestions.label, examQuestions.order)
    .having(sql`count(*) > 1`)
    .orderBy(examQuestions.order, examQuestions.label);
  if (clashes.length > 0) {
    const labels = clashes.map((clash) => clash.label).join(", ");
    throw new AppError("conflict", `The student's submission and this scan both have a mark for question ${labels}: assigning would overwrite one of them`);
  }
}

/**
 * Where the merged submission starts before the marks rule: it now has a scan and a student, so at
 * least matched; a slot or a scan already being marked (or complete) brings that along, as a scan upload
 * keeps the status of a slot being marked.
 */
function carriedStatus(...statuses: SubmissionStatus[]): SubmissionStatus {
  if (statuses.includes("complete")) return "complete";
  if (statuses.includes("marking")) return "marking";
  return "matched";
}
