import { and, asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Tx } from "../../db/client";
import { examScanPages, examSubmissions, examTemplates } from "../../db/schema";
import { env } from "../../env";
import { AppError, notFound } from "../../errors";
import { type NamesShown, batchNames, presentSubmission, scriptLabel } from "../anonymity";
import { submissionOutput } from "../batches";
import { integer } from "../../../lib/rules/input-rules";
import { recordId } from "../../http/record-id";
import { objectStorage } from "../../storage/configured-storage";
import type { ObjectStorage } from "../../storage/object-storage";
import { type IntakeImaging, intakeImaging } from "./imaging-port";
import { openBatchFor } from "../batch-gate";
import { isPageOfPaper, notAPageOfPaper } from "./filing-plan";
import { MAX_PRINTED_PAGE } from "./print-code";
import { rebuildSubmissionScan, withStoredObjects } from "./script-pdf";
import { queueAnswerReading } from "../answer-reading-queue";

const movePageBody = z.object({
  submission_id: z.uuid("submission_id must be a submission id").optional().describe("A submission of the same batch"),
  student_id: z.uuid("student_id must be a student's user id").optional().describe("The student whose submission in this batch gets the page"),
  new_script: z.literal(true, "new_script must be true when given").optional().describe("A new script without a student (to identify later)"),
  page_number: integer({ min: 1, max: MAX_PRINTED_PAGE }).optional().describe("Position in the submission; default the first free one"),
});
export const movePageInput = movePageBody.extend({ page_id: recordId("Page") });
export const movePageOutput = z.object({
  page: z.object({ id: z.uuid(), submission_id: z.uuid(), page_number: z.number().int() }),
  /** The submission that got the page, rebuilt. */
  submission: submissionOutput,
  /** The submission the page left, rebuilt, or null when it was deleted or the page was not filed. */
  left: submissionOutput.nullable(),
});

export interface IntakeWriteOptions {
  imaging?: Pick<IntakeImaging, "assembleScript">;
  storage?: ObjectStorage;
  bucket?: string;
}

/** Pages filed in one submission, in position order. */
export const filedPagesOf = (tx: Tx, submissionId: string) =>
  tx
    .select()
    .from(examScanPages)
    .where(and(eq(examScanPages.submission_id, submissionId), eq(examScanPages.placement, "filed")))
    .orderBy(asc(examScanPages.page_number));

/**
 * Who a submission is, in a message: the student's name, or a script still to identify; in an anonymous
 * batch the script's number, whoever asks (issue 32: no message of an anonymous batch names a student).
 */
const scriptOwner = (submission: { student_name: string | null; script_number: number }, names: NamesShown) =>
  names === "hidden" ? scriptLabel(submission.script_number) : submission.student_name ? `${submission.student_name}'s script` : "This script";

/**
 * Moves one scanned page by hand (a duplicate, a page of a script to identify, or a page filed in the
 * wrong place), in one transaction as the caller:
 * 1. the page is visible (404); the batch gate (move_page): the caller owns its batch (403), it is neither
 *    archived nor signed off (409: a move changes whose evidence a mark is); a refused page
 *    (printed for another batch) and a page still being read do not move (409);
 * 2. the target is exactly one of a submission of the batch (404), a student's submission in it (400
 *    when the student has none), or a new script without a student;
 * 3. a submission whose scan was uploaded on its own takes no pile page (409); the position asked for
 *    must be a page of the paper (400, when the template says how many pages it has) and free (409);
 *    the default is the first free one, which must be a page of the paper too (409);
 * 4. both submissions are rebuilt: a script without a student left with no pages is deleted, a
 *    student's loses its scan (back to "no scan yet").
 */
export async function movePage(tx: Tx, callerId: string, input: z.input<typeof movePageInput>, options: IntakeWriteOptions = {}) {
  const { page_id: pageId, submission_id: submissionId, student_id: studentId, new_script: newScript, page_number: pageNumber } = movePageInput.parse(input);
  if ([submissionId, studentId, newScript].filter((target) => target !== undefined).length !== 1) {
    throw new AppError("invalid", "Choose where the page goes: exactly one of submission_id, student_id or new_script");
  }
  const [page] = await tx.select().from(examScanPages).where(eq(examScanPages.id, pageId));
  if (!page) throw notFound("Page");
  const batch = await openBatchFor(tx, callerId, page.batch_id, "move_page", { lock: true });
  if (page.placement === "refused") throw new AppError("conflict", "This page was printed for another batch: it cannot be filed in this one");
  if (page.placement === "reading") throw new AppError("conflict", "This page's pile is still being read: move the page once the pile is filed");

  const [template] = await tx.select({ page_count: examTemplates.page_count }).from(examTemplates).where(eq(examTemplates.id, batch.template_id));
  const pageCount = template?.page_count ?? null;
  if (pageNumber !== undefined && !isPageOfPaper(pageNumber, pageCount)) throw new AppError("invalid", notAPageOfPaper(pageNumber, pageCount), "page_number");

  const target = await targetSubmission(tx, batch.id, { submissionId, studentId, newScript });
  const names = batchNames(batch);
  const held = (await filedPagesOf(tx, target.id)).filter((other) => other.id !== page.id);
  if (target.scan_url !== null && held.length === 0 && page.submission_id !== target.id) {
    throw new AppError("conflict", `${scriptOwner(target, names)} has a scan uploaded on its own: scanned pages are not added to it`);
  }
  const positions = new Set(held.map((other) => other.page_number!));
  if (pageNumber !== undefined && positions.has(pageNumber)) {
    throw new AppError("conflict", `${scriptOwner(target, names)} already has a page ${pageNumber}: move that page first`, "page_number");
  }
  let position = pageNumber ?? 1;
  while (positions.has(position)) position++;
  if (!isPageOfPaper(position, pageCount)) {
    throw new AppError("conflict", `${scriptOwner(target, names)} already has all ${pageCount} pages of the paper: move one of them first`);
  }

  const source = page.placement === "filed" ? page.submission_id : null;
  await tx
    .update(examScanPages)
    .set({ placement: "filed", submission_id: target.id, page_number: position, duplicate_of: null, note: null, updated_at: new Date() })
    .where(eq(examScanPages.id, page.id));

  const storage = options.storage ?? objectStorage();
  return withStoredObjects(storage, async (stored) => {
    const context = {
      assembleScript: (options.imaging ?? intakeImaging()).assembleScript,
      stored,
      bucket: options.bucket ?? env().SCAN_BUCKET,
      instituteId: batch.institute_id,
      ownerId: callerId,
    };
    const submission = await rebuildSubmissionScan(tx, target.id, context);
    const left = source && source !== target.id ? await rebuildSubmissionScan(tx, source, context) : null;
    // Both scripts' scans changed: their answers are read again (server/exam/answers/read-job.ts).
    await queueAnswerReading(tx, batch, [target.id, ...(left ? [left.id] : [])]);
    return {
      page: { id: page.id, submission_id: target.id, page_number: position },
      submission: presentSubmission(submission!, names),
      left: left ? presentSubmission(left, names) : null,
    };
  });
}

async function targetSubmission(tx: Tx, batchId: string, target: { submissionId?: string; studentId?: string; newScript?: true }) {
  if (target.newScript) {
    const [created] = await tx
      .insert(examSubmissions)
      .values({ batch_id: batchId, student_id: null, student_name: null, status: "unmatched", matching_method: "manual" })
      .returning();
    return created!;
  }
  if (target.studentId) {
    const [slot] = await tx.select().from(examSubmissions).where(and(eq(examSubmissions.batch_id, batchId), eq(examSubmissions.student_id, target.studentId))).for("update");
    if (!slot) throw new AppError("invalid", "Student: not on this batch's roster", "student_id");
    return slot;
  }
  const [submission] = await tx.select().from(examSubmissions).where(and(eq(examSubmissions.batch_id, batchId), eq(examSubmissions.id, target.submissionId!))).for("update");
  if (!submission) throw notFound("Submission");
  return submission;
}
