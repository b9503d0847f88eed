import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { recordId } from "../http/input-rules";
import type { Db } from "../db/client";
import { asUser } from "../db/rls";
import { type NameBox, examBatches, examSubmissions, examTemplates, files } from "../db/schema";
import { AppError, notFound } from "../errors";
import { logger } from "../logger";
import { objectStorage } from "../storage/configured-storage";
import { intakeImaging } from "../intake/imaging-port";
import { nameBoxOnScan } from "../intake/name-box";
import { scanPageNumbers, scanPageOf } from "./scan-page-numbers";
import { type ObjectStorage, isObjectNotFound, putObjectBytes, readObjectBytes } from "../storage/object-storage";

export const submissionIdInput = z.object({ submission_id: recordId("Submission") });

/**
 * GET /api/exam/submissions/{id}/scan: the scanned PDF of one submission, streamed from storage.
 * The submission and its file are read as the caller (row-level security): a submission of another
 * school, a student's, or one without a scan yet all read as 404, as does a file missing from storage.
 * In an anonymous batch the scan comes without the name written on it, for every reader
 * (anonymousScan).
 */
export async function openSubmissionScan(db: Db, callerId: string, submissionId: string, options: { storage?: ObjectStorage } = {}) {
  const { submission_id: id } = submissionIdInput.parse({ submission_id: submissionId });
  const scan = await asUser(db, callerId, async (tx) => {
    const [row] = await tx
      .select({
        bucket: files.bucket,
        key: files.storage_key,
        byteSize: files.byte_size,
        contentType: files.content_type,
        anonymous: examBatches.anonymous,
        nameBox: examTemplates.name_box,
      })
      .from(examSubmissions)
      .innerJoin(files, eq(files.id, examSubmissions.scan_file_id))
      .innerJoin(examBatches, eq(examBatches.id, examSubmissions.batch_id))
      .innerJoin(examTemplates, eq(examTemplates.id, examBatches.template_id))
      .where(eq(examSubmissions.id, id));
    return row && { ...row, pageNumbers: row.anonymous ? await scanPageNumbers(tx, id) : null };
  });
  if (!scan) throw notFound("Scan");
  const storage = options.storage ?? objectStorage();
  try {
    // The name box is on a page of the paper: on a script filed from piles, the scan's page that holds
    // it (page 2 of the paper is the scan's page 1 when page 1 was not scanned); none, nothing to hide.
    const box = scan.anonymous ? nameBoxOnScan({ nameBox: scan.nameBox, filedFromPiles: scan.pageNumbers !== null }) : null;
    const boxPage = box && scanPageOf(scan.pageNumbers, box.page);
    if (box && boxPage !== null) {
      const bytes = await anonymousScan(storage, scan, { ...box, page: boxPage });
      return { contentType: scan.contentType, byteSize: bytes.byteLength, body: new Blob([bytes as Uint8Array<ArrayBuffer>]).stream() };
    }
    return { contentType: scan.contentType, byteSize: scan.byteSize, body: await storage.get(scan.bucket, scan.key) };
  } catch (error) {
    if (isObjectNotFound(error)) throw notFound("Scan");
    if (error instanceof AppError) throw error;
    logger.error("scan read failed", error);
    throw new AppError("upstream", "The scan could not be read from storage; try again");
  }
}

/**
 * The scan of a script of an anonymous batch without its name (imaging's redactNameBox), made once per
 * scan file and name box and kept beside the scan: every marker of the batch opens it, and redacting
 * costs a page render. A new scan is a new file, a moved name box a new key.
 */
async function anonymousScan(storage: ObjectStorage, scan: { bucket: string; key: string; contentType: string }, box: NameBox): Promise<Uint8Array> {
  const boxKey = crypto.createHash("sha256").update(JSON.stringify([box.page, box.x, box.y, box.width, box.height])).digest("hex").slice(0, 16);
  const redactedKey = `${scan.key}.anonymous-${boxKey}.pdf`;
  try {
    return await readObjectBytes(storage, scan.bucket, redactedKey);
  } catch (error) {
    if (!isObjectNotFound(error)) throw error;
  }
  const redacted = await intakeImaging().redactNameBox(await readObjectBytes(storage, scan.bucket, scan.key), box);
  await putObjectBytes(storage, scan.bucket, redactedKey, redacted, { contentType: scan.contentType });
  return redacted;
}
