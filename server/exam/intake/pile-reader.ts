import crypto from "node:crypto";
import { eq, sql } from "drizzle-orm";
import type { Db } from "../../db/client";
import { asService } from "../../db/rls";
import { examBatches, examScanPages, examScanPiles, files } from "../../db/schema";
import { AppError } from "../../errors";
import { type ObjectStorage, putObjectBytes, readObjectBytes } from "../../storage/object-storage";
import { logger } from "../../logger";
import { areaLayout, areaLayoutPlan } from "./area-layout";
import type { PileAreaLayout } from "../ticks/reading";
import { pageAreasKey } from "../ticks/stored-reading";
import type { PageReading, ReadPile, ReadPileOptions } from "./page-reading";

type PileRow = typeof examScanPiles.$inferSelect;

/** Where a pile's one-page PDFs are kept: deterministic, so a page read again after a restart overwrites itself. */
const pilePageKey = (pile: Pick<PileRow, "batch_id" | "id">, pilePage: number) => `exam-pages/${pile.batch_id}/${pile.id}/${pilePage}.pdf`;

/**
 * The reading half of a pile's job, as the service: every page read is stored as a one-page PDF and
 * recorded (placement `reading`) together with the pile's progress, one transaction per page. A run
 * after a crash resumes after the last recorded page: a page stored but not recorded is read and
 * written again. With `slicePages`, at most that many pages are read in this call: `finished` says
 * whether the pile's pages are all read.
 */
export async function readPileIntoPages(
  db: Db,
  pileId: string,
  readPile: ReadPile,
  options: { storage: ObjectStorage; bucket: string; signal?: AbortSignal; maxPages?: number; slicePages?: number },
): Promise<{ finished: boolean }> {
  const { pile, batch, file, areas: plan } = await asService(db, async (tx) => {
    const [found] = await tx
      .select({ pile: examScanPiles, batch: examBatches, file: files })
      .from(examScanPiles)
      .innerJoin(examBatches, eq(examBatches.id, examScanPiles.batch_id))
      .innerJoin(files, eq(files.id, examScanPiles.file_id))
      .where(eq(examScanPiles.id, pileId));
    if (!found) throw new AppError("not_found", "The pile has been removed");
    await tx.update(examScanPiles).set({ status: "reading" }).where(eq(examScanPiles.id, pileId));
    return { ...found, areas: await areaLayoutPlan(tx, found.batch) };
  });
  if (pile.page_count !== null && pile.pages_read >= pile.page_count) return { finished: true };

  const bytes = new Uint8Array(await readObjectBytes(options.storage, file.bucket, file.storage_key));
  // Each coded page's areas are read beside its code (issue 36), and kept with the page.
  const areas = await areaLayout(plan, options.storage);
  let readNow = 0;
  for await (const reading of readWithAreas(readPile, bytes, { fromPage: pile.pages_read + 1, maxPages: options.maxPages, signal: options.signal }, areas)) {

    const key = pilePageKey(pile, reading.pilePage);
    await putObjectBytes(options.storage, options.bucket, key, reading.onePagePdf, { contentType: "application/pdf" });
    await asService(db, async (tx) => {
      const [pageFile] = await tx
        .insert(files)
        .values({
          institute_id: batch.institute_id,
          owner_id: pile.uploaded_by,
          bucket: options.bucket,
          storage_key: key,
          content_type: "application/pdf",
          byte_size: reading.onePagePdf.byteLength,
          sha256: crypto.createHash("sha256").update(reading.onePagePdf).digest("hex"),
          page_count: 1,
        })
        .returning({ id: files.id });
      await tx
        .insert(examScanPages)
        .values({ pile_id: pile.id, batch_id: pile.batch_id, pile_page: reading.pilePage, file_id: pageFile!.id, code: reading.code, rotation: reading.rotation, placement: "reading", ...storedReading(reading, areas) });
      await tx
        .update(examScanPiles)
        .set({ page_count: reading.pileSize, pages_read: sql`greatest(${examScanPiles.pages_read}, ${reading.pilePage})` })
        .where(eq(examScanPiles.id, pile.id));
    });
    // A slice is read: the rest waits for the pile's next turn (leaving the loop closes the pile).
    if (++readNow === options.slicePages && reading.pilePage < reading.pileSize) return { finished: false };
  }
  return { finished: true };
}

/** The page's areas as the pass read them, with the key of the areas they were read against, for its row (nothing when it was not read there). */
function storedReading(reading: PageReading, areas: PileAreaLayout | null) {
  const read = reading.areaReading;
  const page = read && areas?.pages.find((laid) => laid.page === read.page);
  if (!read || !page) return {};
  return { area_reading: { ...read.reading, layout_key: pageAreasKey(page) } as unknown as Record<string, unknown>, area_reading_page: read.page };
}

/**
 * The pile read with its batch's areas; should the imaging refuse the areas themselves (param "areas":
 * a template's paper it cannot draw), the pile is read for its codes alone, as before, and filing reads
 * the areas page by page: the teacher's pile never fails for its template.
 */
async function* readWithAreas(readPile: ReadPile, bytes: Uint8Array, options: ReadPileOptions, areas: PileAreaLayout | null): AsyncGenerator<PageReading> {
  if (!areas) {
    yield* readPile(bytes, options);
    return;
  }
  let yielded = false;
  try {
    for await (const reading of readPile(bytes, { ...options, areas })) {
      yielded = true;
      yield reading;
    }
  } catch (error) {
    if (yielded || !(error instanceof AppError) || error.param !== "areas") throw error;
    logger.warn(`the pile's areas were refused (${error.message}); the pile is read for its codes`);
    yield* readPile(bytes, options);
  }
}
