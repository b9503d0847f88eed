import type { Tx } from "../../db/client";
import { AppError } from "../../errors";
import type { examBatches } from "../../db/schema";
import type { ObjectStorage } from "../../storage/object-storage";
import { pageSizes, readPaper, readPaperBytes } from "./print-scripts";
import { type PageRect, STAMP_CORNERS, stampTextRect, stampTextRects } from "./stamp";

/**
 * Where the stamps of a batch's printed scripts carry their text: on scripts printed before the batch
 * was made anonymous, the student's name. The scans of an anonymous batch are shown to its markers with
 * these places painted over (server/exam/scan-files.ts, server/exam/intake/name-crop.ts). The corner of each
 * page is the print's own choice (`placeStamps` on the paper's page sizes and the template's answer
 * areas and name box), so the answers beside the stamp stay.
 */
export interface StampPlaces {
  /** Whether the batch was ever printed: a batch never printed has no stamp to cover. */
  printed: boolean;
  paper: { bucket: string; key: string } | null;
  keepClear: PageRect[];
}

/** A4 portrait, in points: the page size assumed when the paper cannot be read. */
const A4 = { width: 595.28, height: 841.89 };

/** What the stamps' places depend on, read as the caller (any staff member who can see the batch). */
export async function readStampPlaces(tx: Tx, batch: Pick<typeof examBatches.$inferSelect, "template_id" | "print_code">): Promise<StampPlaces> {
  if (batch.print_code === null) return { printed: false, paper: null, keepClear: [] };
  const paper = await readPaper(tx, batch);
  return { printed: true, paper: paper.file, keepClear: paper.keepClear.map(({ page, x, y, width, height }) => ({ page, x, y, width, height })) };
}

/** A stable text of what the covers depend on, for the key of a redacted copy kept in storage. */
export function stampPlacesKey(places: StampPlaces): unknown {
  return places.printed ? [places.paper?.key ?? null, places.keepClear.map(({ page, x, y, width, height }) => [page, x, y, width, height])] : null;
}

/**
 * The stamp's text on each page of the paper (page-relative, `page` the paper's page). When the paper
 * cannot be read (gone from storage, damaged) every corner of every page (page 0) is covered instead,
 * on A4: a name is never shown for want of knowing where it is.
 */
export async function stampTextCovers(places: StampPlaces, storage: ObjectStorage): Promise<PageRect[]> {
  if (!places.printed) return [];
  const everyCorner = () => STAMP_CORNERS.map((corner) => stampTextRect(0, corner, A4));
  if (!places.paper) return everyCorner();
  try {
    return stampTextRects(await pageSizes(await readPaperBytes(storage, places.paper)), places.keepClear);
  } catch (error) {
    // Missing or damaged (409s of the print): every corner. A storage failure is the caller's 502.
    if (error instanceof AppError && error.code === "conflict") return everyCorner();
    throw error;
  }
}
