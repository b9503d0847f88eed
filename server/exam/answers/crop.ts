import { and, eq } from "drizzle-orm";
import { PDFDocument } from "pdf-lib";
import type { z } from "zod";
import { nameBoxOf } from "../../../lib/rules/name-box";
import type { Db } from "../../db/client";
import { asUser } from "../../db/rls";
import { examAnswerReadings, examBatches, examResponseAreas, examScanPages, examSubmissions, examTemplates, files } from "../../db/schema";
import { AppError, notFound } from "../../errors";
import { logger } from "../../logger";
import { objectStorage } from "../../storage/configured-storage";
import { type ObjectStorage, isObjectNotFound, readObjectBytes } from "../../storage/object-storage";
import { intakeImaging } from "../intake/imaging-port";
import type { QuarterTurn } from "../intake/page-reading";
import { readStampPlaces, stampTextCovers } from "../intake/stamp-covers";
import { cropRect } from "./answers";
import type { answerCropInput } from "./shapes";

/**
 * The crop of one script's response area (issue 36), as a PNG: the area's bounds on the template page
 * grown by CROP_MARGIN, cut from the upright scanned page it was read on (its filed pile page, or the
 * page of a scan uploaded on its own). Read as the caller: a script or an area the caller cannot see, or
 * an area not of the script's paper, is a 404. In an anonymous batch the page's covers (the name box,
 * the stamp's text) are painted over first, whoever asks, as every answers reply hides the names.
 */
export async function answerCrop(db: Db, callerId: string, input: z.output<typeof answerCropInput>, options: { storage?: ObjectStorage } = {}): Promise<Uint8Array> {
  const storage = options.storage ?? objectStorage();
  const found = await asUser(db, callerId, async (tx) => {
    const [row] = await tx
      .select({ submission: examSubmissions, batch: examBatches, nameBox: examTemplates.name_box })
      .from(examSubmissions)
      .innerJoin(examBatches, eq(examBatches.id, examSubmissions.batch_id))
      .innerJoin(examTemplates, eq(examTemplates.id, examBatches.template_id))
      .where(eq(examSubmissions.id, input.submission_id));
    if (!row) return null;
    const [area] = await tx
      .select()
      .from(examResponseAreas)
      .where(and(eq(examResponseAreas.id, input.response_area_id), eq(examResponseAreas.template_id, row.batch.template_id)));
    if (!area) return null;
    const [reading] = await tx
      .select({ page_number: examAnswerReadings.page_number })
      .from(examAnswerReadings)
      .where(and(eq(examAnswerReadings.submission_id, row.submission.id), eq(examAnswerReadings.response_area_id, area.id)));
    const pageNumber = reading?.page_number ?? area.page;
    const [page] = await tx
      .select({ bucket: files.bucket, key: files.storage_key, rotation: examScanPages.rotation, printed_page: examScanPages.printed_page })
      .from(examScanPages)
      .innerJoin(files, eq(files.id, examScanPages.file_id))
      .where(and(eq(examScanPages.submission_id, row.submission.id), eq(examScanPages.placement, "filed"), eq(examScanPages.page_number, pageNumber)));
    const [scan] = !page && row.submission.scan_file_id ? await tx.select({ bucket: files.bucket, key: files.storage_key }).from(files).where(eq(files.id, row.submission.scan_file_id)) : [];
    if (!page && !scan) return null;
    const stamps = row.batch.anonymous ? await readStampPlaces(tx, row.batch) : null;
    return { area, pageNumber, page: page ?? null, scan: scan ?? null, anonymous: row.batch.anonymous, nameBox: row.nameBox, stamps };
  });
  if (!found) throw notFound("Answer crop");

  let onePagePdf: Uint8Array;
  let rotation: QuarterTurn = 0;
  if (found.page) {
    onePagePdf = await stored(storage, found.page);
    rotation = found.page.rotation as QuarterTurn;
  } else {
    onePagePdf = await pageOf(await stored(storage, found.scan!), found.pageNumber);
  }
  const templatePage = found.page?.printed_page ?? found.pageNumber;
  const covers: { x: number; y: number; width: number; height: number }[] = [];
  if (found.anonymous) {
    const { page: namePage, ...nameRect } = nameBoxOf({ name_box: found.nameBox });
    // A page whose code was not read may be any page: its name box is covered too.
    if (found.page?.printed_page == null || namePage === templatePage) covers.push(nameRect);
    if (found.stamps) {
      for (const { page, ...rect } of await stampTextCovers(found.stamps, storage)) {
        if (page === 0 || found.page?.printed_page == null || page === templatePage) covers.push(rect);
      }
    }
  }
  const png = await intakeImaging().answerCrop(onePagePdf, rotation, cropRect(found.area), covers);
  if (!png) throw notFound("Answer crop");
  return png;
}

/** A stored PDF's bytes: 404 when it is gone, 502 when storage fails. */
async function stored(storage: ObjectStorage, object: { bucket: string; key: string }): Promise<Uint8Array> {
  try {
    return new Uint8Array(await readObjectBytes(storage, object.bucket, object.key));
  } catch (error) {
    if (isObjectNotFound(error)) throw notFound("Scan");
    logger.error("scan read for an answer crop failed", error);
    throw new AppError("upstream", "The scan could not be read from storage; try again");
  }
}

/** Page `pageNumber` of a scan uploaded on its own, as a one-page PDF (404 when it has fewer pages). */
async function pageOf(scan: Uint8Array, pageNumber: number): Promise<Uint8Array> {
  let source: PDFDocument;
  try {
    source = await PDFDocument.load(scan, { updateMetadata: false });
  } catch {
    throw new AppError("conflict", "This script's scan cannot be read: upload it again");
  }
  if (pageNumber > source.getPageCount()) throw notFound("Page");
  const single = await PDFDocument.create();
  const [copy] = await single.copyPages(source, [pageNumber - 1]);
  single.addPage(copy);
  return single.save();
}
