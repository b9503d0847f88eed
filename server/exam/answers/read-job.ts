import { and, asc, eq, inArray, isNotNull } from "drizzle-orm";
import type { Db } from "../../db/client";
import { asService } from "../../db/rls";
import { examBatches, examResponseAreas, examScanPages, examSubmissions, files } from "../../db/schema";
import { AppError } from "../../errors";
import { defineJobKind } from "../../jobs/kind";
import { objectStorage } from "../../storage/configured-storage";
import { type ObjectStorage, isObjectNotFound, readObjectBytes } from "../../storage/object-storage";
import { type IntakeImaging, intakeImaging } from "../intake/imaging-port";
import type { QuarterTurn } from "../intake/page-reading";
import { decodePageCode } from "../intake/print-code";
import { pageSizes, readPaper, readPaperBytes } from "../intake/print-scripts";
import { type ScriptPageReading, replaceScriptReadings } from "./automatic-marks";
import { readAnswersQueue } from "../answer-reading-queue";
import { areasToRead } from "../ticks/reading";
import { pageAreasKey, type StoredAreaReadingRow, storedAreaReading } from "../ticks/stored-reading";
import { type AreaToRead, type FiledPage, type PaperForReading, areasOnPage, readFiledPage } from "./read-page";

/**
 * The reading job (issue 36): when a script's scan changes (a pile filed, a scan uploaded on its own, a
 * page moved), its filed pages' tick boxes and written areas are read against the template's paper, as
 * the service, and the script's readings and automatic marks replaced in one transaction
 * (automatic-marks.ts). A failure leaves the previous readings; the job runner retries it, and shares
 * its slots fairly between schools (the payload names the school). Queued by queueAnswerReading
 * (server/exam/answer-reading-queue.ts).
 */

export const readAnswersJob = defineJobKind({
  ...readAnswersQueue,
  permanentFailure: (error) => error instanceof AppError && error.code === "invalid",
  async run({ submission_id: submissionId }, { db }) {
    await readScriptAnswers(db, submissionId, intakeImaging());
  },
});

interface ScriptToRead {
  batch: typeof examBatches.$inferSelect;
  scriptNumber: number;
  paper: { bucket: string; key: string } | null;
  keepClear: PaperForReading["keepClear"];
  areas: AreaToRead[];
  /** Filed pile pages, or the scan uploaded on its own. */
  pages: ({ page_number: number; printed_page: number | null; code: string | null; rotation: number; bucket: string; key: string } & StoredAreaReadingRow)[];
  scan: { bucket: string; key: string } | null;
}

/** What the job needs of a script, as the service; null when the script is gone. */
async function scriptToRead(db: Db, submissionId: string): Promise<ScriptToRead | null> {
  return asService(db, async (tx) => {
    const [row] = await tx
      .select({ submission: examSubmissions, batch: examBatches })
      .from(examSubmissions)
      .innerJoin(examBatches, eq(examBatches.id, examSubmissions.batch_id))
      .where(eq(examSubmissions.id, submissionId));
    if (!row) return null;
    const paper = await readPaper(tx, row.batch);
    const areas = await tx
      .select({
        id: examResponseAreas.id,
        page: examResponseAreas.page,
        x: examResponseAreas.x,
        y: examResponseAreas.y,
        width: examResponseAreas.width,
        height: examResponseAreas.height,
        tick_boxes: examResponseAreas.tick_boxes,
      })
      .from(examResponseAreas)
      .where(and(eq(examResponseAreas.template_id, row.batch.template_id), eq(examResponseAreas.kind, "response")));
    const pages = await tx
      .select({
        page_number: examScanPages.page_number,
        printed_page: examScanPages.printed_page,
        code: examScanPages.code,
        rotation: examScanPages.rotation,
        area_reading: examScanPages.area_reading,
        area_reading_page: examScanPages.area_reading_page,
        bucket: files.bucket,
        key: files.storage_key,
      })
      .from(examScanPages)
      .innerJoin(files, eq(files.id, examScanPages.file_id))
      .where(and(eq(examScanPages.submission_id, submissionId), eq(examScanPages.placement, "filed"), isNotNull(examScanPages.page_number)))
      .orderBy(asc(examScanPages.page_number));
    const [scan] =
      pages.length === 0 && row.submission.scan_file_id
        ? await tx.select({ bucket: files.bucket, key: files.storage_key }).from(files).where(inArray(files.id, [row.submission.scan_file_id]))
        : [];
    return {
      batch: row.batch,
      scriptNumber: row.submission.script_number,
      paper: paper.file,
      keepClear: paper.keepClear.map(({ page, x, y, width, height }) => ({ page, x, y, width, height })),
      areas,
      pages: pages.map((page) => ({ ...page, page_number: page.page_number! })),
      scan: scan ?? null,
    };
  });
}

/**
 * Reads every page of a script that has areas to read, then replaces the script's readings and
 * automatic marks. A script without a scan, or whose paper has no PDF, is left with no readings.
 */
async function readScriptAnswers(db: Db, submissionId: string, imaging: Pick<IntakeImaging, "readAreas" | "readPile">, options: { storage?: ObjectStorage } = {}): Promise<void> {
  const storage = options.storage ?? objectStorage();
  const script = await scriptToRead(db, submissionId);
  if (!script) return;
  const readings: ScriptPageReading[] = [];
  if (script.paper && script.areas.length > 0) {
    const paperFile = script.paper;
    // The paper is fetched only for a page the pile's pass did not read already.
    let paper: Promise<PaperForReading> | null = null;
    const paperForReading = () =>
      (paper ??= readPaperBytes(storage, paperFile).then(async (bytes) => ({ bytes, pageSizes: await pageSizes(bytes), keepClear: script.keepClear })));
    const printed = script.batch.print_code ? { batchCode: script.batch.print_code, scriptNumber: script.scriptNumber } : null;
    for await (const page of filedPages(script, storage, imaging)) {
      const own = areasOnPage(script.areas, page.templatePage);
      if (own.length === 0) continue;
      const reading =
        readInPilePass(page, own) ?? (page.onePagePdf ? await readFiledPage(imaging, await paperForReading(), { ...page, onePagePdf: page.onePagePdf, printed }, script.areas) : null);
      if (reading) readings.push({ pageNumber: page.pageNumber, reading });
    }
  }
  await asService(db, (tx) => replaceScriptReadings(tx, submissionId, readings));
}

/** The script's pages one at a time: its filed pile pages, or the pages of its scan uploaded on its own (split by the pile's reader). */
async function* filedPages(script: ScriptToRead, storage: ObjectStorage, imaging: Pick<IntakeImaging, "readPile">): AsyncIterable<PageToRead> {
  for (const page of script.pages) {
    const templatePage = page.printed_page ?? page.page_number;
    const common = { pageNumber: page.page_number, templatePage, rotation: page.rotation as QuarterTurn, code: page.code, stored: page };
    // A page the pile's pass read (its stored reading) needs no bytes; the others are fetched to be read.
    if (readInPilePass({ ...common, onePagePdf: null }, areasOnPage(script.areas, templatePage))) {
      yield { ...common, onePagePdf: null };
      continue;
    }
    const onePagePdf = await storedBytes(storage, page);
    if (!onePagePdf) continue;
    yield { ...common, onePagePdf };
  }
  if (script.pages.length > 0 || !script.scan) return;
  const scan = await storedBytes(storage, script.scan);
  if (!scan) return;
  for await (const page of imaging.readPile(scan)) {
    const decoded = page.code ? decodePageCode(page.code) : null;
    const templatePage = decoded?.kind === "page" ? decoded.page : page.pilePage;
    yield { pageNumber: page.pilePage, templatePage, onePagePdf: page.onePagePdf, rotation: page.rotation, code: page.code, stored: null };
  }
}

/** A page of the script: its bytes (null when the pile's pass read it already), or its stored reading. */
type PageToRead = Omit<FiledPage, "printed" | "onePagePdf"> & { pageNumber: number; onePagePdf: Uint8Array | null; stored: StoredAreaReadingRow | null };

/** The reading the pile's pass kept on the page, when it was made against this page's areas as they are now. */
function readInPilePass(page: PageToRead, areas: AreaToRead[]) {
  if (!page.stored) return null;
  const { tickAreas, writtenAreas } = areasToRead(areas);
  return storedAreaReading(page.stored, {
    page: page.templatePage,
    tickAreaIds: tickAreas.map((area) => area.id),
    writtenAreaIds: writtenAreas.map((area) => area.id),
    layoutKey: pageAreasKey({ tickAreas, writtenAreas }),
  });
}

/** An object's bytes, or null when it is gone from storage (the page then has no reading). */
async function storedBytes(storage: ObjectStorage, object: { bucket: string; key: string }): Promise<Uint8Array | null> {
  try {
    return new Uint8Array(await readObjectBytes(storage, object.bucket, object.key));
  } catch (error) {
    if (isObjectNotFound(error)) return null;
    throw error;
  }
}
