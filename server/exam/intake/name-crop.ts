import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../../db/client";
import { asUser } from "../../db/rls";
import { examBatches, examScanPages, examSubmissions, examTemplates, files } from "../../db/schema";
import { AppError, notFound } from "../../errors";
import { submissionIdInput } from "../scan-files";
import { recordId } from "../../http/record-id";
import { logger } from "../../logger";
import { objectStorage } from "../../storage/configured-storage";
import { type ObjectStorage, isObjectNotFound, readObjectBytes } from "../../storage/object-storage";
import { intakeImaging } from "./imaging-port";
import { type NameBox, nameBoxOf, nameBoxOnScan } from "../../../lib/rules/name-box";
import type { QuarterTurn } from "./page-reading";
import { readStampPlaces, stampTextCovers } from "./stamp-covers";


/**
 * The name written on a script, for the Identify screen: the template's name box cut out of the
 * script's scan, upright, as a JPEG. The submission is read as the caller (404 across schools, as for
 * its scan). A script made of pile pages is cropped from its page at the name box's position, turned as
 * it was filed; a scan uploaded on its own from its first page.
 * 404 when there is no scan or no such page; null from the imaging (a page without pixels) is a 404 too.
 * In an anonymous batch only its owner, who identifies its scripts, gets the crop: anyone else 403.
 */
export async function nameCrop(db: Db, callerId: string, submissionId: string, options: { storage?: ObjectStorage } = {}): Promise<Uint8Array> {
  const { submission_id: id } = submissionIdInput.parse({ submission_id: submissionId });
  const source = await asUser(db, callerId, async (tx) => {
    const [submission] = await tx
      .select({ nameBox: examTemplates.name_box, scanFileId: examSubmissions.scan_file_id, anonymous: examBatches.anonymous, ownerId: examBatches.teacher_id })
      .from(examSubmissions)
      .innerJoin(examBatches, eq(examBatches.id, examSubmissions.batch_id))
      .innerJoin(examTemplates, eq(examTemplates.id, examBatches.template_id))
      .where(eq(examSubmissions.id, id));
    if (!submission) return null;
    if (submission.anonymous && submission.ownerId !== callerId) {
      throw new AppError("forbidden", "This batch is marked anonymously: only its owner sees the names written on its scripts");
    }
    const box = nameBoxOf({ name_box: submission.nameBox });
    const [page] = await tx
      .select({ bucket: files.bucket, key: files.storage_key, rotation: examScanPages.rotation })
      .from(examScanPages)
      .innerJoin(files, eq(files.id, examScanPages.file_id))
      .where(and(eq(examScanPages.submission_id, id), eq(examScanPages.page_number, box.page)));
    if (page) return { ...page, box };
    if (!submission.scanFileId) return null;
    const [scan] = await tx.select({ bucket: files.bucket, key: files.storage_key }).from(files).where(eq(files.id, submission.scanFileId));
    return scan ? { ...scan, rotation: 0, box: nameBoxOnScan({ nameBox: submission.nameBox, filedFromPiles: false }) } : null;
  });
  if (!source) throw notFound("Scan");
  const { page: _page, ...rect } = source.box;
  return cropStoredPage(source, rect, options.storage);
}

const WHOLE_PAGE = { x: 0, y: 0, width: 1, height: 1 };

/**
 * One scanned page of a pile, upright, as a JPEG: what the "Scanned pages" screen shows before a page
 * is moved by hand. Read as the caller: the school's staff (404 otherwise, as for the page list). In an
 * anonymous batch, anyone but its owner (who identifies the scripts) gets the names painted over: the
 * name box on a page that may carry it (the name box's page of the paper, or a page whose code was not
 * read), and the stamp's text, which names the student on scripts printed before the batch was made
 * anonymous (on a page whose code was not read, wherever a stamp can be).
 */
export async function scanPageImage(db: Db, callerId: string, pageId: string, options: { storage?: ObjectStorage } = {}): Promise<Uint8Array> {
  const { page_id: id } = scanPageIdInput.parse({ page_id: pageId });
  const found = await asUser(db, callerId, async (tx) => {
    const [row] = await tx
      .select({
        bucket: files.bucket,
        key: files.storage_key,
        rotation: examScanPages.rotation,
        printedPage: examScanPages.printed_page,
        anonymous: examBatches.anonymous,
        ownerId: examBatches.teacher_id,
        templateId: examBatches.template_id,
        printCode: examBatches.print_code,
        nameBox: examTemplates.name_box,
      })
      .from(examScanPages)
      .innerJoin(files, eq(files.id, examScanPages.file_id))
      .innerJoin(examBatches, eq(examBatches.id, examScanPages.batch_id))
      .leftJoin(examTemplates, eq(examTemplates.id, examBatches.template_id))
      .where(eq(examScanPages.id, id));
    if (!row) return null;
    const hidden = row.anonymous && row.ownerId !== callerId;
    return { source: row, stamps: hidden ? await readStampPlaces(tx, { template_id: row.templateId, print_code: row.printCode }) : null };
  });
  if (!found) throw notFound("Page");
  const { source, stamps } = found;
  if (!stamps) return cropStoredPage(source, WHOLE_PAGE, options.storage);
  const storage = options.storage ?? objectStorage();
  const { page: namePage, ...nameRect } = nameBoxOf({ name_box: source.nameBox });
  const mayShowName = source.printedPage === null || source.printedPage === namePage;
  const stampTexts = (await stampTextCovers(stamps, storage)).filter((rect) => rect.page === 0 || source.printedPage === null || rect.page === source.printedPage);
  const covers = [...(mayShowName ? [nameRect] : []), ...stampTexts.map(({ page: _page, ...rect }) => rect)];
  const pdf = await readStoredPage(source, storage);
  const image = await intakeImaging().redactedPageImage(pdf, source.rotation as QuarterTurn, covers);
  if (!image) throw notFound("Scan");
  return image;
}

/** A stored page's PDF: 404 when it is gone, 502 when storage fails. */
async function readStoredPage(source: { bucket: string; key: string }, storage: ObjectStorage): Promise<Uint8Array> {
  try {
    return await readObjectBytes(storage, source.bucket, source.key);
  } catch (error) {
    if (isObjectNotFound(error)) throw notFound("Scan");
    logger.error("scanned page read failed", error);
    throw new AppError("upstream", "The scan could not be read from storage; try again");
  }
}

export const scanPageIdInput = z.object({ page_id: recordId("Page") });

/** A page-relative rectangle of the first page of a stored PDF, turned upright, as JPEG (in the imaging worker). */
async function cropStoredPage(source: { bucket: string; key: string; rotation: number }, rect: Omit<NameBox, "page">, storage = objectStorage()): Promise<Uint8Array> {
  const pdf = await readStoredPage(source, storage);
  const crop = await intakeImaging().nameBoxCrop(pdf, source.rotation as QuarterTurn, rect);
  if (!crop) throw notFound("Scan");
  return crop;
}
