import { eq } from "drizzle-orm";
import { z } from "zod";
import { recordId } from "../http/input-rules";
import type { Db } from "../db/client";
import { asUser } from "../db/rls";
import { examSubmissions, files } from "../db/schema";
import { AppError, notFound } from "../errors";
import { logger } from "../logger";
import { objectStorage } from "../storage/configured-storage";
import { type ObjectStorage, isObjectNotFound } from "../storage/object-storage";

export const submissionIdInput = z.object({ submission_id: recordId("Submission") });

/**
 * GET /api/exam/submissions/{id}/scan: the scanned PDF of one submission, streamed from storage.
 * The submission and its file are read as the caller (row-level security): a submission of another
 * school, a student's, or one without a scan yet all read as 404, as does a file missing from storage.
 */
export async function openSubmissionScan(db: Db, callerId: string, submissionId: string, options: { storage?: ObjectStorage } = {}) {
  const { submission_id: id } = submissionIdInput.parse({ submission_id: submissionId });
  const scan = await asUser(db, callerId, async (tx) => {
    const [row] = await tx
      .select({ bucket: files.bucket, key: files.storage_key, byteSize: files.byte_size, contentType: files.content_type })
      .from(examSubmissions)
      .innerJoin(files, eq(files.id, examSubmissions.scan_file_id))
      .where(eq(examSubmissions.id, id));
    return row;
  });
  if (!scan) throw notFound("Scan");
  const storage = options.storage ?? objectStorage();
  try {
    return { ...scan, body: await storage.get(scan.bucket, scan.key) };
  } catch (error) {
    if (isObjectNotFound(error)) throw notFound("Scan");
    logger.error("scan read failed", error);
    throw new AppError("upstream", "The scan could not be read from storage; try again");
  }
}
