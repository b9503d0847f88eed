import { AppError } from "../../errors";
import { openCheckedPdf } from "../intake/imaging/inspect";
import { DECODE_PIXEL_LIMIT, PAGE_PIXEL_CAP, checkPageStreams } from "../intake/imaging/limits";
import { loadPdfJs, standardFontDataUrl } from "../intake/imaging/pdfjs";
import type { TextItem } from "../template-reading/page-content";
import type { SchemeLine } from "./read-scheme";

/**
 * The imaging worker's `readMarkScheme` (issue 37, item 3): a mark scheme's PDF as lines of cells, for
 * the pure reader (read-scheme.ts). Its text layer only (a scanned scheme has none: said, not guessed).
 * Bounded as every file a person sends: opened and its page tree walked by pdf-lib, every stream
 * checked before pdfjs decodes anything; at most MAX_SCHEME_PAGES pages, MAX_TEXT_ITEMS pieces of
 * text a page, and READ_BUDGET_MS of reading in all.
 *
 * Lines: the text items of a page on one baseline (within a third of the text's size), left to right.
 * Cells: where the table's header ("Question … Answer … Marks … Guidance") is found, each item goes to
 * the column whose header starts at or left of it; without a header, a gap wider than twice the text's
 * size starts a new cell.
 */

const MAX_SCHEME_PAGES = 80;
const MAX_TEXT_ITEMS = 20_000;
/** The longest a scheme's PDF is read: 80 pages of text take about two seconds on this machine. */
const READ_BUDGET_MS = 20_000;

export async function readMarkSchemePdf(pdf: Uint8Array, now: () => number = Date.now): Promise<SchemeLine[]> {
  const started = now();
  const { document: checked, pageCount } = await openCheckedPdf(pdf, { maxPages: MAX_SCHEME_PAGES, what: "paper" });
  if (pageCount < 1) throw new AppError("invalid", "This PDF has no pages. Export the mark scheme as PDF again.", "file");
  await checkPageStreams(checked, null);
  const pdfjs = await loadPdfJs();
  const task = pdfjs.getDocument({ data: new Uint8Array(pdf), standardFontDataUrl, verbosity: 0, maxImageSize: DECODE_PIXEL_LIMIT, canvasMaxAreaInBytes: PAGE_PIXEL_CAP * 4, isOffscreenCanvasSupported: false });
  const lines: SchemeLine[] = [];
  let columns: number[] | null = null;
  let anyText = false;
  try {
    const document = await task.promise.catch(() => {
      throw new AppError("invalid", "This mark scheme's PDF cannot be read: export it as PDF again, or paste its text", "file");
    });
    for (let pageNumber = 1; pageNumber <= Math.min(pageCount, document.numPages); pageNumber++) {
      if (now() - started > READ_BUDGET_MS) {
        throw new AppError("invalid", `This mark scheme's PDF takes too long to read (page ${pageNumber} of ${pageCount}): paste its text instead`, "file");
      }
      const page = await document.getPage(pageNumber);
      try {
        const viewport = page.getViewport({ scale: 1 });
        const text = await page.getTextContent();
        if (text.items.length > MAX_TEXT_ITEMS) {
          throw new AppError("invalid", `Page ${pageNumber} of this PDF has more text than any mark scheme's page: paste its text instead`, "file");
        }
        const items: TextItem[] = [];
        for (const item of text.items) {
          if (!("str" in item) || item.str.trim().length === 0) continue;
          const [a, b, c, d, e, f] = item.transform as number[];
          if (Math.abs(b!) > 1e-3 * Math.abs(a!) || !Number.isFinite(e) || !Number.isFinite(f)) continue;
          const [x, baseline] = viewport.convertToViewportPoint(e!, f!) as [number, number];
          items.push({ str: item.str, x, baseline, width: Math.abs(item.width), size: Math.hypot(c!, d!) || Math.abs(item.height) });
        }
        anyText ||= items.length > 0;
        for (const line of linesOf(items)) {
          const header = headerColumns(line);
          if (header) {
            columns = header;
            continue;
          }
          lines.push(columns ? cellsByColumns(line, columns) : cellsByGaps(line));
        }
      } finally {
        page.cleanup();
      }
    }
  } finally {
    await task.destroy();
  }
  if (!anyText) throw new AppError("invalid", "This PDF has no text to read (a scan?): paste the mark scheme's text instead", "file");
  return lines;
}

/** A page's items in lines: one baseline within a third of the text's size, top to bottom, each left to right. */
function linesOf(items: TextItem[]): TextItem[][] {
  const sorted = [...items].sort((first, second) => first.baseline - second.baseline || first.x - second.x);
  const lines: TextItem[][] = [];
  for (const item of sorted) {
    const last = lines.at(-1);
    if (last && Math.abs(last[0]!.baseline - item.baseline) <= Math.max(1, item.size / 3)) last.push(item);
    else lines.push([item]);
  }
  return lines.map((line) => line.sort((first, second) => first.x - second.x));
}

/** The left edges of the table's columns when `line` is its header ("Question", "Answer", "Marks", and "Guidance" or the like). */
function headerColumns(line: TextItem[]): number[] | null {
  const words = line.map((item) => item.str.trim().toLowerCase());
  if (words.length < 3 || !/^(question|qu\.?|q)$/.test(words[0]!) || !words.some((word) => /^marks?$/.test(word))) return null;
  return line.map((item) => item.x);
}

function cellsByColumns(line: TextItem[], columns: number[]): string[] {
  const cells = columns.map(() => [] as string[]);
  for (const item of line) {
    let column = 0;
    for (let index = 0; index < columns.length; index++) if (item.x >= columns[index]! - 2) column = index;
    cells[column]!.push(item.str.trim());
  }
  // The label's cell is kept when empty (a row under its part's first: its answer is no label); other empty cells go.
  const [label, ...rest] = cells.map((cell) => cell.join(" "));
  return [label!, ...rest.filter((cell) => cell.length > 0)];
}

function cellsByGaps(line: TextItem[]): string[] {
  const cells: string[][] = [];
  let right = -Infinity;
  for (const item of line) {
    if (cells.length === 0 || item.x - right > 2 * item.size) cells.push([]);
    cells.at(-1)!.push(item.str.trim());
    right = item.x + item.width;
  }
  return cells.map((cell) => cell.join(" "));
}
