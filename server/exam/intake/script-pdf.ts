import crypto from "node:crypto";
import { and, asc, eq } from "drizzle-orm";
import type { Tx } from "../../db/client";
import { examMarkEntries, examScanPages, examSubmissions, files } from "../../db/schema";
import { AppError } from "../../errors";
import { logger } from "../../logger";
import { type ObjectStorage, putObjectBytes, readObjectBytes } from "../../storage/object-storage";
import type { AssembleScript, QuarterTurn } from "./page-reading";

type SubmissionRow = typeof examSubmissions.$inferSelect;

/**
 * Objects written to storage inside a database transaction: if the transaction then fails, they are
 * deleted again (`discard`), so a refused move or a failed filing leaves no orphaned PDF behind.
 */
export class StoredObjects {
  private readonly keys: { bucket: string; key: string }[] = [];
  constructor(readonly storage: ObjectStorage) {}

  async put(bucket: string, key: string, bytes: Uint8Array) {
    await putObjectBytes(this.storage, bucket, key, bytes, { contentType: "application/pdf" });
    this.keys.push({ bucket, key });
  }

  async discard() {
    for (const { bucket, key } of this.keys.splice(0)) {
      await this.storage.delete(bucket, key).catch((error) => logger.error(`could not delete orphaned PDF ${bucket}/${key}`, error));
    }
  }
}

/** Runs `write` with a fresh StoredObjects; when it throws, what it stored is deleted and the error rethrown. */
export async function withStoredObjects<T>(storage: ObjectStorage, write: (stored: StoredObjects) => Promise<T>): Promise<T> {
  const stored = new StoredObjects(storage);
  try {
    return await write(stored);
  } catch (error) {
    await stored.discard();
    throw error;
  }
}

export interface ScriptPdfContext {
  assembleScript: AssembleScript;
  stored: StoredObjects;
  bucket: string;
  instituteId: string;
  /** Who the assembled PDF's files row names: the caller, or the pile's uploader in the job. */
  ownerId: string | null;
}

/** The status of a submission whose pile pages changed: without a student unmatched; marks stay valid. */
function statusWithScan(submission: SubmissionRow): SubmissionRow["status"] {
  if (submission.student_id === null) return "unmatched";
  return submission.status === "marking" || submission.status === "complete" ? submission.status : "matched";
}

/**
 * Rebuilds a submission's scan from its filed pile pages, in position order, each turned upright, and
 * stores it at exam-submissions/<batch_id>/<uuid>.pdf. A submission left without pages: a student's
 * loses its scan (back to "no scan yet"), one without a student is deleted. Returns the row, or null
 * when it was deleted. The previous PDF stays in storage (a marker may have it open).
 */
export async function rebuildSubmissionScan(tx: Tx, submissionId: string, context: ScriptPdfContext): Promise<SubmissionRow | null> {
  const [submission] = await tx.select().from(examSubmissions).where(eq(examSubmissions.id, submissionId)).for("update");
  if (!submission) throw new AppError("internal", "A submission to rebuild has gone");
  const pages = await tx
    .select({ rotation: examScanPages.rotation, bucket: files.bucket, key: files.storage_key })
    .from(examScanPages)
    .innerJoin(files, eq(files.id, examScanPages.file_id))
    .where(and(eq(examScanPages.submission_id, submissionId), eq(examScanPages.placement, "filed")))
    .orderBy(asc(examScanPages.page_number));

  if (pages.length === 0) {
    // Marks on a script without a student are kept with it (deleting it would delete them).
    const [marked] = await tx.select({ id: examMarkEntries.id }).from(examMarkEntries).where(eq(examMarkEntries.submission_id, submissionId)).limit(1);
    if (submission.student_id === null && !marked) {
      await tx.delete(examSubmissions).where(eq(examSubmissions.id, submissionId));
      return null;
    }
    const status = submission.status === "matched" ? "absent" : submission.status;
    const [cleared] = await tx
      .update(examSubmissions)
      .set({ scan_url: null, scan_file_id: null, page_count: null, matching_method: null, status, updated_at: new Date() })
      .where(eq(examSubmissions.id, submissionId))
      .returning();
    return cleared!;
  }

  const onePagePdfs = [];
  for (const page of pages) {
    onePagePdfs.push({ onePagePdf: new Uint8Array(await readObjectBytes(context.stored.storage, page.bucket, page.key)), rotation: page.rotation as QuarterTurn });
  }
  const pdf = await context.assembleScript(onePagePdfs);
  const key = `exam-submissions/${submission.batch_id}/${crypto.randomUUID()}.pdf`;
  await context.stored.put(context.bucket, key, pdf);
  const [file] = await tx
    .insert(files)
    .values({
      institute_id: context.instituteId,
      owner_id: context.ownerId,
      bucket: context.bucket,
      storage_key: key,
      content_type: "application/pdf",
      byte_size: pdf.byteLength,
      sha256: crypto.createHash("sha256").update(pdf).digest("hex"),
      page_count: pages.length,
    })
    .returning({ id: files.id });
  const [rebuilt] = await tx
    .update(examSubmissions)
    .set({
      scan_url: key,
      scan_file_id: file!.id,
      page_count: pages.length,
      // Filing by code sets qr; a script identified by hand keeps manual.
      matching_method: submission.matching_method ?? "qr",
      status: statusWithScan(submission),
      absence_marked_at: null,
      updated_at: new Date(),
    })
    .where(eq(examSubmissions.id, submissionId))
    .returning();
  return rebuilt!;
}
