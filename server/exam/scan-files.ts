import crypto from "node:crypto";
import { eq } from "drizzle-orm";
import { z } from "zod";
import { recordId } from "../http/record-id";
import type { Db } from "../db/client";
import { asUser } from "../db/rls";
import { examBatches, examSubmissions, examTemplates, files } from "../db/schema";
import { AppError, notFound } from "../errors";
import { logger } from "../logger";
import { objectStorage } from "../storage/configured-storage";
import { intakeImaging } from "./intake/imaging-port";
import { type NameBox, nameBoxOnScan } from "../../lib/rules/name-box";
import type { PageRect } from "./intake/stamp";
import { type StampPlaces, readStampPlaces, stampPlacesKey, stampTextCovers } from "./intake/stamp-covers";
import { scanPageNumbers, scanPageOf } from "./scan-page-numbers";
import { type ObjectStorage, isObjectNotFound, putObjectBytes, readObjectBytes } from "../storage/object-storage";

export const submissionIdInput = z.object({ submission_id: recordId("Submission") });

/**
 * GET /api/exam/submissions/{id}/scan: the scanned PDF of one submission, streamed from storage.
 * The submission and its file are read as the caller (row-level security): a submission of another
 * school, a student's, or one without a scan yet all read as 404, as does a file missing from storage.
 * In an anonymous batch the scan comes without any name on it, for every reader (anonymousScan).
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
        templateId: examBatches.template_id,
        printCode: examBatches.print_code,
        nameBox: examTemplates.name_box,
      })
      .from(examSubmissions)
      .innerJoin(files, eq(files.id, examSubmissions.scan_file_id))
      .innerJoin(examBatches, eq(examBatches.id, examSubmissions.batch_id))
      .innerJoin(examTemplates, eq(examTemplates.id, examBatches.template_id))
      .where(eq(examSubmissions.id, id));
    if (!row?.anonymous) return row && { ...row, stamps: null, pageNumbers: null };
    const stamps = await readStampPlaces(tx, { template_id: row.templateId, print_code: row.printCode });
    return { ...row, stamps, pageNumbers: await scanPageNumbers(tx, id) };
  });
  if (!scan) throw notFound("Scan");
  const storage = options.storage ?? objectStorage();
  try {
    if (scan.stamps) {
      const box = nameBoxOnScan({ nameBox: scan.nameBox, filedFromPiles: scan.pageNumbers !== null });
      const bytes = await anonymousScan(storage, scan, box, scan.stamps, scan.pageNumbers);
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
 * The scan of a script of an anonymous batch without any name on it (imaging's redactScript): every
 * page a picture, with the name box and the stamp's text (scripts printed before the batch was made
 * anonymous carry the student's name there) painted over, and no text layer. Made once per scan file,
 * name box and stamp places, and kept beside the scan: every marker of the batch opens it, and
 * redacting costs a render of every page. A new scan is a new file; a moved name box, a changed
 * template or paper a new key. The key's "v2" leaves behind the copies made before the stamp and the
 * text layer were redacted.
 */
async function anonymousScan(
  storage: ObjectStorage,
  scan: { bucket: string; key: string; contentType: string },
  box: NameBox,
  stamps: StampPlaces,
  pageNumbers: readonly number[] | null,
): Promise<Uint8Array> {
  const depends = ["v2", [box.page, box.x, box.y, box.width, box.height], stampPlacesKey(stamps), pageNumbers];
  const boxKey = crypto.createHash("sha256").update(JSON.stringify(depends)).digest("hex").slice(0, 16);
  const redactedKey = `${scan.key}.anonymous-${boxKey}.pdf`;
  try {
    return await readObjectBytes(storage, scan.bucket, redactedKey);
  } catch (error) {
    if (!isObjectNotFound(error)) throw error;
  }
  const covers = onScanPages([box, ...(await stampTextCovers(stamps, storage))], pageNumbers);
  const redacted = await intakeImaging().redactScript(await readObjectBytes(storage, scan.bucket, scan.key), covers);
  await putObjectBytes(storage, scan.bucket, redactedKey, redacted, { contentType: scan.contentType });
  return redacted;
}

/**
 * Covers placed on the paper's pages, moved to the scan's pages: a script filed from piles lacks the pages
 * that were not scanned (page 3 of the paper is the scan's page 2 when page 2 is missing), and a cover of
 * a page that was not scanned has nothing to hide. Page 0 (every page) stays as it is.
 */
function onScanPages(covers: PageRect[], pageNumbers: readonly number[] | null): PageRect[] {
  return covers.flatMap((cover) => {
    if (cover.page === 0) return [cover];
    const page = scanPageOf(pageNumbers, cover.page);
    return page === null ? [] : [{ ...cover, page }];
  });
}
