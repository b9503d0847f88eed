import crypto from "node:crypto";
import sharp from "sharp";
import { AppError } from "../../../errors";
import { type CodeCorners, type TemplatePage, WORK_DPI, alignByCode, alignByContent, placeAreas, scanPage, templatePage } from "../../ticks/align";
import type { Affine } from "../../ticks/image";
import { readWrittenArea, writtenTiles } from "../../ticks/blank-areas";
import { readTickArea, boundsOf } from "../../ticks/read-ticks";
import type { AreaRect, AreasReading, PileAreaLayout, PileAreaReading, TickAreaToRead, WrittenAreaToRead } from "../../ticks/reading";
import type { QuarterTurn } from "../page-reading";
import { openCheckedPdf } from "./inspect";
import { cappedDpi, checkPageStreams } from "./limits";
import { type PagePixels, pagePixels } from "./page-pixels";
import { type GreyImage, openForRendering } from "./pdfjs";
import { type PageCodeReading, readCodeIn } from "./qr";
import { MAX_PRINTED_PAGE, decodePageCode, isBatchCode } from "../print-code";
import { type PageRect, type PageSize, printedCodeRect } from "../stamp";

/**
 * readAreas, in the imaging worker: one scanned page's tick boxes and written areas read against its
 * template page (server/exam/ticks/). The scan and the paper are checked as every file a person sent is
 * (inspect.ts, limits.ts) before anything is decoded; the areas are checked here. The template page is
 * rendered once per paper and page and kept (a pile's pages share it).
 */

export interface ReadAreasInput {
  /** The scanned page alone, as readPile gives it, and the turn that shows it upright. */
  onePagePdf: Uint8Array;
  rotation: QuarterTurn;
  /** The template's paper and the page (1-based) this scan is a copy of. */
  paper: Uint8Array;
  page: number;
  /** Where the print put the page's code on the template page (page fractions); null when it has none (then the content aligns). */
  code: AreaRect | null;
  tickAreas: TickAreaToRead[];
  writtenAreas: WrittenAreaToRead[];
}

/** The most areas of either kind on one page, and boxes in one area. */
const MAX_AREAS = 100;
const MAX_BOXES = 26;
/**
 * Template pages kept rendered (most recently used): a pile is one paper, its pages in any order, so
 * every page of a long paper is kept (~3 MB each at WORK_DPI: a miss costs a render of the paper's page).
 */
const TEMPLATE_CACHE = 24;
/** Around where the print put the code, the search for it on the scan (mm): the sheet's shift and skew. */
const CODE_SEARCH_MM = 14;

const templates = new Map<string, TemplatePage>();

export async function readAreas(input: ReadAreasInput): Promise<AreasReading> {
  checkAreas(input);
  const template = await templateOf(input.paper, paperKey(input.paper), input.page);
  const { document } = await openCheckedPdf(input.onePagePdf, { maxPages: 1, what: "scan" });
  if (document.getPageCount() !== 1) throw new AppError("invalid", "A scanned page to read is one page of a PDF.", "file");
  await checkPageStreams(document, 1);
  // A page scanned at twice the reading's resolution or more is decoded at half: the code still reads there.
  const pixels = await pagePixels(document, input.onePagePdf, { halveFrom: 2 * WORK_DPI });
  if (!pixels) return notAligned(template, input);
  return readAreasOnPixels(pixels, template, input);
}

/** What a page not aligned reads as: every box and written area uncertain. */
function notAligned(template: TemplatePage, areas: Pick<ReadAreasInput, "tickAreas" | "writtenAreas">): AreasReading {
  return {
    alignment: { by: "none", turn: 0 },
    tickAreas: areas.tickAreas.map((area) => readTickArea(template, area, { transform: null, score: 0, view: null })),
    writtenAreas: areas.writtenAreas.map((area) => ({ id: area.id, blank: "uncertain", ink: 0, reason: "not-aligned" })),
  };
}

/** The areas of a page to read on pixels already decoded: the page's turn, where the print put its code, the areas. */
interface AreasOnPixels extends Pick<ReadAreasInput, "rotation" | "code" | "tickAreas" | "writtenAreas"> {
  /** The code's corners in these pixels when they are known already (the pile pass read the code on them); otherwise they are looked for where the print put the code. */
  corners?: CodeCorners | null;
}

/**
 * The one reading of a page's areas, on its decoded pixels (as the page lies, before its turn): the
 * standalone readAreas and the pile pass (pile.ts, readPilePage) both call it, so a page reads the same
 * wherever it is read. The areas are checked by the caller (checkAreas, checkLayout).
 */
async function readAreasOnPixels(pixels: PagePixels, template: TemplatePage, input: AreasOnPixels): Promise<AreasReading> {
  // The code's corners are found on the scan as it lies (no turning of its pixels: that costs more than the rest).
  let scan = scanPage({ data: pixels.data, width: pixels.width, height: pixels.height }, pixels.dpi);
  let first: { transform: Affine; turn: 0 | 180; by: "code" | "content" } | null = null;
  if (input.code) {
    const corners = input.corners ?? (await codeOnScan(scan.image, scan.dpi, input.code, input.rotation));
    const fit = corners && alignByCode(template, scan, input.code, corners);
    // The turn from the page as the reading's rotation shows it to the template (half a turn when that rotation was wrong).
    const turnOf = (fit: Affine) => (Math.abs(((Math.atan2(fit.d, fit.a) * 180) / Math.PI + input.rotation + 540) % 360 - 180) > 90 ? 180 : 0);
    if (fit) first = { transform: fit, turn: turnOf(fit), by: "code" };
  }
  if (!first) {
    // By the content: on the page turned upright as the reading says (the search tries half a turn more).
    const upright = await sharp(pixels.data, { raw: { width: pixels.width, height: pixels.height, channels: 1 } })
      .rotate(input.rotation)
      .toColourspace("b-w")
      .raw()
      .toBuffer({ resolveWithObject: true });
    scan = scanPage({ data: new Uint8Array(upright.data.buffer, upright.data.byteOffset, upright.data.byteLength), width: upright.info.width, height: upright.info.height }, pixels.dpi);
    const found = alignByContent(template, scan);
    if (found) first = { ...found, by: "content" };
  }
  if (!first) return notAligned(template, input);
  // Every tick-box area is placed, and each piece of a written area (writtenTiles).
  const tiles = input.writtenAreas.map((area) => writtenTiles(template, area));
  const rects: AreaRect[] = [...input.tickAreas.map((area) => boundsOf(area.boxes)), ...tiles.flat()];
  const placements = placeAreas(template, scan, first.transform, rects);
  let next = input.tickAreas.length;
  return {
    alignment: { by: first.by, turn: first.turn },
    tickAreas: input.tickAreas.map((area, index) => readTickArea(template, area, placements[index]!)),
    writtenAreas: input.writtenAreas.map((area, index) =>
      readWrittenArea(
        template,
        area,
        tiles[index]!.map((rect) => ({ rect, placement: placements[next++]! })),
      ),
    ),
  };
}

/**
 * The code's corners on the scan as it lies (its pixels), looked for around where the print put it on
 * the page turned by `rotation`; null when not read there.
 */
async function codeOnScan(image: GreyImage, dpi: number, code: AreaRect, rotation: QuarterTurn): Promise<CodeCorners | null> {
  const margin = (CODE_SEARCH_MM / 25.4) * dpi;
  const quarter = rotation === 90 || rotation === 270;
  const uprightWidth = quarter ? image.height : image.width;
  const uprightHeight = quarter ? image.width : image.height;
  // Upright pixels → the scan's own (the inverse of turning it clockwise by `rotation`).
  const toScan = (x: number, y: number) =>
    rotation === 0 ? { x, y } : rotation === 180 ? { x: image.width - x, y: image.height - y } : rotation === 90 ? { x: y, y: image.height - x } : { x: image.width - y, y: x };
  const corners = [
    toScan(code.x * uprightWidth - margin, code.y * uprightHeight - margin),
    toScan((code.x + code.width) * uprightWidth + margin, (code.y + code.height) * uprightHeight + margin),
  ];
  const left = Math.max(0, Math.floor(Math.min(corners[0]!.x, corners[1]!.x)));
  const top = Math.max(0, Math.floor(Math.min(corners[0]!.y, corners[1]!.y)));
  const right = Math.min(image.width, Math.ceil(Math.max(corners[0]!.x, corners[1]!.x)));
  const bottom = Math.min(image.height, Math.ceil(Math.max(corners[0]!.y, corners[1]!.y)));
  if (right - left < 8 || bottom - top < 8) return null;
  const found = await readCodeIn(image, { left, top, width: right - left, height: bottom - top });
  return found.corners ?? null;
}

/** What a paper's rendered pages are kept under (its bytes' hash: taken once for an open pile). */
const paperKey = (paper: Uint8Array) => crypto.createHash("sha256").update(paper).digest("hex");

async function templateOf(paper: Uint8Array, paperHash: string, page: number): Promise<TemplatePage> {
  const key = `${paperHash}:${page}`;
  const kept = templates.get(key);
  if (kept) {
    // Most recently used last.
    templates.delete(key);
    templates.set(key, kept);
    return kept;
  }
  const { document, pageCount } = await openCheckedPdf(paper, { maxPages: 200, what: "paper" });
  if (!Number.isInteger(page) || page < 1 || page > pageCount) throw new AppError("invalid", `The paper has no page ${page}.`, "page");
  await checkPageStreams(document, null);
  const { width, height } = document.getPage(page - 1).getSize();
  if (cappedDpi(width, height, WORK_DPI) < WORK_DPI) {
    throw new AppError("invalid", "This paper's pages are larger than tick boxes are read on (A3 at most). Export the paper at its printed size.", "file");
  }
  const renderable = await openForRendering(paper).catch(() => {
    throw new AppError("invalid", "The paper cannot be drawn: it may be damaged. Export the paper as PDF again.", "file");
  });
  try {
    const image = await renderable.render(page, WORK_DPI);
    const made = templatePage(image);
    templates.set(key, made);
    while (templates.size > TEMPLATE_CACHE) templates.delete(templates.keys().next().value!);
    return made;
  } finally {
    await renderable.close();
  }
}

const isFraction = (value: unknown): value is number => typeof value === "number" && Number.isFinite(value) && value >= 0 && value <= 1;

/** A rectangle within the page (a hair's tolerance at its edges), of positive size. */
function onPage(rect: AreaRect): boolean {
  return isFraction(rect.x) && isFraction(rect.y) && isFraction(rect.width) && isFraction(rect.height) && rect.width > 0 && rect.height > 0 && rect.x + rect.width <= 1.000001 && rect.y + rect.height <= 1.000001;
}

function checkAreas(input: ReadAreasInput) {
  if (input.code !== null && !onPage(input.code)) throw refuse("The code's place is not on the page.");
  if (![0, 90, 180, 270].includes(input.rotation)) throw new AppError("invalid", "A page is turned by a quarter turn, a half or none.", "rotation");
  checkAreaLists(input.tickAreas, input.writtenAreas);
}

const refuse = (message: string) => new AppError("invalid", message, "areas");

function checkAreaLists(tickAreas: TickAreaToRead[], writtenAreas: WrittenAreaToRead[]) {
  if (!Array.isArray(tickAreas) || !Array.isArray(writtenAreas)) throw refuse("The areas to read are missing.");
  if (tickAreas.length > MAX_AREAS || writtenAreas.length > MAX_AREAS) throw refuse(`A page has at most ${MAX_AREAS} areas of each kind to read.`);
  for (const area of tickAreas) {
    if (!Array.isArray(area.boxes) || area.boxes.length === 0 || area.boxes.length > MAX_BOXES) throw refuse(`A tick-box area has from 1 to ${MAX_BOXES} boxes.`);
    for (const box of area.boxes) {
      if (!onPage(box)) throw refuse(`Tick box ${String(box.label).slice(0, 8)} is not on the page.`);
      if (box.shape !== "square" && box.shape !== "round") throw refuse("A tick box is square or round.");
      if (typeof box.label !== "string" || box.label.length === 0 || box.label.length > 8) throw refuse("A tick box's label is 1 to 8 characters.");
    }
  }
  for (const area of writtenAreas) if (!onPage(area)) throw refuse("A written area is not on the page.");
}

/** A layout checked and its paper opened: what an open pile keeps. */
export interface OpenAreaLayout {
  batchCode: string;
  paper: Uint8Array;
  /** paperKey(paper), taken once. */
  paperHash: string;
  pageSizes: PageSize[];
  keepClear: PageRect[];
  pages: Map<number, { tickAreas: TickAreaToRead[]; writtenAreas: WrittenAreaToRead[] }>;
}

/** The most places a print keeps clear (every area of a long paper and its name box). */
const MAX_KEEP_CLEAR = 5000;

/**
 * Checks a pile's area layout and opens its paper (refused with a sentence, as readAreas refuses): a
 * batch code that is not one, pages that are not the paper's, areas off the page or too many.
 */
export async function openAreaLayout(layout: PileAreaLayout): Promise<OpenAreaLayout> {
  if (typeof layout !== "object" || layout === null) throw refuse("The areas to read are missing.");
  if (typeof layout.batchCode !== "string" || !isBatchCode(layout.batchCode)) throw refuse("The batch code of the areas to read is not a batch code.");
  if (!Array.isArray(layout.keepClear) || layout.keepClear.length > MAX_KEEP_CLEAR) throw refuse(`A paper keeps at most ${MAX_KEEP_CLEAR} places clear of the print's code.`);
  if (!Array.isArray(layout.pages) || layout.pages.length > MAX_PRINTED_PAGE) throw refuse(`A paper has at most ${MAX_PRINTED_PAGE} pages of areas to read.`);
  const { document, pageCount } = await openCheckedPdf(layout.paper, { maxPages: MAX_PRINTED_PAGE, what: "paper" });
  const pageSizes = document.getPages().map((page) => page.getSize());
  const isPage = (page: unknown): page is number => Number.isInteger(page) && (page as number) >= 1 && (page as number) <= pageCount;
  for (const place of layout.keepClear) if (!isPage(place.page) || !onPage(place)) throw refuse("A place the print keeps clear is not on the paper.");
  const pages = new Map<number, { tickAreas: TickAreaToRead[]; writtenAreas: WrittenAreaToRead[] }>();
  for (const entry of layout.pages) {
    if (!isPage(entry.page)) throw new AppError("invalid", `The paper has no page ${String(entry.page).slice(0, 12)}.`, "page");
    if (pages.has(entry.page)) throw refuse(`Page ${entry.page}'s areas are given twice.`);
    checkAreaLists(entry.tickAreas, entry.writtenAreas);
    if (entry.tickAreas.length + entry.writtenAreas.length > 0) pages.set(entry.page, { tickAreas: entry.tickAreas, writtenAreas: entry.writtenAreas });
  }
  return { batchCode: layout.batchCode, paper: layout.paper, paperHash: paperKey(layout.paper), pageSizes, keepClear: layout.keepClear, pages };
}

/**
 * The pile pass's reading of a page's areas, on the pixels its code was read on (the code's corners
 * found already): null when the code names no page of the layout's batch with areas.
 */
export async function readLaidOutAreas(layout: OpenAreaLayout, pixels: PagePixels, code: PageCodeReading): Promise<PileAreaReading | null> {
  if (!code.code) return null;
  const decoded = decodePageCode(code.code);
  if (decoded.kind !== "page" || decoded.batchCode !== layout.batchCode) return null;
  const areas = layout.pages.get(decoded.page);
  if (!areas) return null;
  const { page, ...codeRect } = printedCodeRect(layout.pageSizes, layout.keepClear, decoded.page, code.code);
  const template = await templateOf(layout.paper, layout.paperHash, page);
  // As readAreas decodes a page: at half from twice the reading's resolution (the code was read on the whole).
  const { pixels: read, corners } = pixels.dpi >= 2 * WORK_DPI ? halved(pixels, code.corners ?? null) : { pixels, corners: code.corners ?? null };
  const reading = await readAreasOnPixels(read, template, { rotation: code.rotation, code: codeRect, corners, ...areas });
  return { page, reading };
}

/**
 * The page's pixels at half their resolution, each the mean of a 2×2 block, and the code's corners where
 * they fall on them. In one pass here rather than by libvips: its resize took ~13 ms a page (a pipeline
 * built, the page copied in and out), most of what the pass added to a page's reading beside placing its areas.
 */
function halved(pixels: PagePixels, corners: CodeCorners | null): { pixels: PagePixels; corners: CodeCorners | null } {
  if (pixels.width < 2 || pixels.height < 2) return { pixels, corners };
  const width = Math.max(1, Math.floor(pixels.width / 2));
  const height = Math.max(1, Math.floor(pixels.height / 2));
  const data = new Uint8Array(width * height);
  const source = pixels.data;
  const stride = pixels.width;
  for (let y = 0; y < height; y++) {
    let from = 2 * y * stride;
    const row = y * width;
    for (let x = 0; x < width; x++, from += 2) data[row + x] = (source[from]! + source[from + 1]! + source[from + stride]! + source[from + stride + 1]! + 2) >> 2;
  }
  const sx = width / pixels.width;
  const sy = height / pixels.height;
  const at = ({ x, y }: { x: number; y: number }) => ({ x: x * sx, y: y * sy });
  return {
    pixels: { data, width, height, dpi: pixels.dpi * sx },
    corners: corners && { topLeft: at(corners.topLeft), topRight: at(corners.topRight), bottomLeft: at(corners.bottomLeft), bottomRight: at(corners.bottomRight) },
  };
}
