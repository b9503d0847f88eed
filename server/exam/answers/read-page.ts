import type { TickBox } from "../../../lib/rules/tick-boxes";
import type { IntakeImaging } from "../intake/imaging-port";
import type { QuarterTurn } from "../intake/page-reading";
import { decodePageCode, encodePageCode } from "../intake/print-code";
import { type PageRect, type PageSize, printedCodeRect } from "../intake/stamp";
import { type AreasReading, areasToRead } from "../ticks/reading";

/**
 * The reading of one filed page (issue 36): its tick-box and written response areas read against its
 * template page, by the imaging's readAreas. The one place that turns a filed page into readAreas'
 * request: the reading job (read-job.ts) calls it for every page of a script, and the pile's own pass
 * may call it for each page it files.
 */

/** A response area of the template, as the reader takes it. */
export interface AreaToRead {
  id: string;
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  tick_boxes: TickBox[] | null;
}

/** The template's paper, once per script: its bytes, page sizes, and what the print's stamps kept clear of. */
export interface PaperForReading {
  bytes: Uint8Array;
  pageSizes: PageSize[];
  keepClear: PageRect[];
}

export interface FiledPage {
  /** The page alone (one-page PDF) and the turn that shows it upright. */
  onePagePdf: Uint8Array;
  rotation: QuarterTurn;
  /** The page of the paper this scan is a copy of (1-based). */
  templatePage: number;
  /** The QR text read off the page, if any. */
  code: string | null;
  /** The code the print would have put there (batch code and script number), when the script was printed. */
  printed: { batchCode: string; scriptNumber: number } | null;
}

/** The areas of a page worth reading: tick-box areas, and written (response) areas. */
export const areasOnPage = (areas: AreaToRead[], page: number) => areas.filter((area) => area.page === page);

/**
 * Reads one filed page; null when the paper has no such page or the page has no area to read. The
 * code's place on the template page comes from the code read, or the one the print put there: without
 * either the reader aligns by the page's content.
 */
export async function readFiledPage(imaging: Pick<IntakeImaging, "readAreas">, paper: PaperForReading, page: FiledPage, areas: AreaToRead[]): Promise<AreasReading | null> {
  const own = areasOnPage(areas, page.templatePage);
  if (own.length === 0 || page.templatePage < 1 || page.templatePage > paper.pageSizes.length) return null;
  const codeText = codeTextOf(page);
  const codeRect = codeText ? printedCodeRect(paper.pageSizes, paper.keepClear, page.templatePage, codeText) : null;
  return imaging.readAreas({
    onePagePdf: page.onePagePdf,
    rotation: page.rotation,
    paper: paper.bytes,
    page: page.templatePage,
    code: codeRect ? { x: codeRect.x, y: codeRect.y, width: codeRect.width, height: codeRect.height } : null,
    ...areasToRead(own),
  });
}

/** The page's code text: as read when it is one of ours for this page, else as the print made it. */
function codeTextOf(page: FiledPage): string | null {
  if (page.code && decodePageCode(page.code).kind === "page") return page.code;
  if (!page.printed) return null;
  try {
    return encodePageCode({ batchCode: page.printed.batchCode, scriptNumber: page.printed.scriptNumber, page: page.templatePage });
  } catch {
    return null;
  }
}
