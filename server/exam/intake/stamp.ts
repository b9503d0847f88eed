import { PDFDocument, type PDFFont, type PDFPage, rgb } from "pdf-lib";
import QRCode from "qrcode";
import { drawableText, embedNameFonts } from "../../pdf/fonts";
import { encodePageCode } from "./print-code";

/**
 * Stamps printed scripts: every page of the paper, once per script, with the page's QR code and a line a
 * person can read, in a corner clear of the places students write.
 *
 * Sizes come from measurements on simulated copier piles (STACK-NOTES.md, "QR codes on scanned pages"):
 * modules of 0.85 mm (0.8 mm or more reads at 150 dpi), the code at least 10 mm from every edge (skew
 * and shift move a corner by 8–13 mm).
 */

const MM = 72 / 25.4;
const MODULE = 0.85 * MM;
/** QR's own quiet zone is 4 modules; it lies inside the 10 mm edge margin and the clearance checks. */
const QUIET_MODULES = 4;
const EDGE_MARGIN = 10 * MM;
const TEXT_SIZE = 7;
const TEXT_GAP = 2 * MM;
const TEXT_WIDTH = 62 * MM;

/** A page-relative rectangle (0–1, origin top-left), as response areas are stored. */
export interface PageRect {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
}

export type StampCorner = "top-right" | "bottom-right" | "top-left" | "bottom-left";
/** Tried in this order: the top right is where exam boards leave room, the bottom right comes next. */
const CORNERS: StampCorner[] = ["top-right", "bottom-right", "top-left", "bottom-left"];

export interface ScriptToStamp {
  scriptNumber: number;
  /**
   * The first readable line: the student's name, or "Spare copy"; null for a script of an anonymous
   * batch, whose stamp then reads "Script n · Page p of N · <batch code>" only.
   */
  heading: string | null;
}

export interface PagePlacement<Area extends PageRect = PageRect> {
  page: number;
  corner: StampCorner;
  /** Set when no corner was clear: the page's areas the stamp covers, so the teacher can be told. */
  overlaps: Area[];
}

export interface StampedScripts {
  pdf: Uint8Array;
  placements: PagePlacement[];
}

/**
 * One PDF: for each script, every page of `paper` with its stamp. The paper's pages are embedded once
 * and drawn on every copy, so a class set costs little more than the paper itself.
 * `keepClear` holds the response areas and the name box: a stamp goes in the first corner that covers
 * none of them on its page; when every corner covers one, the one covering least, reported in
 * `placements`.
 */
export async function stampScripts(paper: Uint8Array, batchCode: string, scripts: ScriptToStamp[], keepClear: PageRect[], { firstPageNote }: StampOptions = {}): Promise<StampedScripts> {
  const source = await PDFDocument.load(paper, { updateMetadata: false });
  const output = await PDFDocument.create({ updateMetadata: false });
  output.setCreator("Markbook");
  output.setProducer("Markbook");
  const { regular: font, bold } = await embedNameFonts(output);
  const sourcePages = source.getPages();
  const embedded = await output.embedPages(sourcePages);
  const pageCount = sourcePages.length;

  const placements = placeStamps(sourcePages.map((page) => page.getSize()), keepClear);
  // The note's place on the first page, once for every script: clear of the areas, the name box and the stamp.
  const note = firstPageNote && embedded.length > 0 ? placeNote(drawableText(firstPageNote, font), font, embedded[0]!, keepClear, placements[0]!.corner) : null;

  for (const script of scripts) {
    for (const [index, paperPage] of embedded.entries()) {
      const { width, height } = paperPage;
      const page = output.addPage([width, height]);
      page.drawPage(paperPage, { x: 0, y: 0, width, height });
      const code = encodePageCode({ batchCode, scriptNumber: script.scriptNumber, page: index + 1 });
      const detail = `Script ${script.scriptNumber} · Page ${index + 1} of ${pageCount} · ${batchCode}`;
      drawStamp(page, placements[index]!.corner, code, [script.heading === null ? null : printable(script.heading, bold), printable(detail, font)], { font, bold });
      if (index === 0 && note) for (const line of note.lines) page.drawText(line.text, { x: line.x, y: line.y, size: note.size, font, color: rgb(0, 0, 0) });
    }
  }
  return { pdf: await output.save(), placements };
}

export interface StampOptions {
  /**
   * One short line printed on each script's first page, in small type, where it covers no area of
   * `keepClear` and not the stamp (the corrections convention of a paper with tick boxes,
   * server/exam/ticks/read-ticks.ts); left out when no place on the page is clear.
   */
  firstPageNote?: string | null;
}

const NOTE_SIZE = 7;
const NOTE_MIN_SIZE = 5.5;
const NOTE_MARGIN = 10 * MM;
/** The note's least distance from the page's foot or head: beyond the 4–5 mm most printers cannot print on. */
const NOTE_EDGE = 7 * MM;
/** Steps of the search for a clear band, from the page's foot up (the foot and the head first: margins are clear on most papers). */
const NOTE_STEP = 2 * MM;

interface PlacedNote {
  size: number;
  lines: { text: string; x: number; y: number }[];
}

/**
 * Where the note goes on a page of `size`: a band of its lines (one; two when one does not fit the
 * page's width even at the smallest size), left-aligned at the margin, at the first height — the foot,
 * the head, then every step up from the foot — where the band touches no area of the page's
 * `keepClear` and not the stamp's box in `corner`. Null when no height is clear.
 */
export function placeNote(text: string, font: PDFFont, size: PageSize, keepClear: PageRect[], corner: StampCorner): PlacedNote | null {
  const room = size.width - 2 * NOTE_MARGIN;
  let fontSize = NOTE_SIZE;
  while (fontSize > NOTE_MIN_SIZE && font.widthOfTextAtSize(text, fontSize) > room) fontSize -= 0.5;
  const lines = font.widthOfTextAtSize(text, fontSize) <= room ? [text] : splitInTwo(text, font, fontSize, room);
  if (!lines) return null;
  const width = Math.max(...lines.map((line) => font.widthOfTextAtSize(line, fontSize)));
  const lineHeight = fontSize * 1.25;
  const bandHeight = lines.length * lineHeight;
  const areas = keepClear.filter((area) => area.page === 1).map((area) => toPoints(area, size));
  // The stamp as any code a batch prints draws it (a larger code moves its text).
  const stamps = PRINTED_MODULE_COUNTS.map((count) => stampBox(corner, size, count).bounds);
  const clearAt = (bottom: number) => {
    const band = { left: NOTE_MARGIN, right: NOTE_MARGIN + width, bottom, top: bottom + bandHeight };
    return ![...stamps, ...areas].some((area) => intersects(band, area));
  };
  const foot = NOTE_EDGE;
  const head = size.height - NOTE_EDGE - bandHeight;
  const heights = [foot, head];
  for (let bottom = foot + NOTE_STEP; bottom < head; bottom += NOTE_STEP) heights.push(bottom);
  const bottom = heights.find(clearAt);
  if (bottom === undefined) return null;
  // Top line first, the baseline a quarter of a line above each line's foot.
  return { size: fontSize, lines: lines.map((line, index) => ({ text: line, x: NOTE_MARGIN, y: bottom + (lines.length - 1 - index) * lineHeight + fontSize * 0.25 })) };
}

/** The text in two lines of `room` at most, broken at a space; null when it does not fit in two. */
function splitInTwo(text: string, font: PDFFont, fontSize: number, room: number): string[] | null {
  const words = text.split(" ");
  for (let cut = words.length - 1; cut > 0; cut--) {
    const first = words.slice(0, cut).join(" ");
    const second = words.slice(cut).join(" ");
    if (font.widthOfTextAtSize(first, fontSize) <= room) return font.widthOfTextAtSize(second, fontSize) <= room ? [first, second] : null;
  }
  return null;
}

/** A page's size in PDF points. */
export interface PageSize {
  width: number;
  height: number;
}

/** The stamp's box on a page, in PDF points (origin bottom-left): the code, its quiet zone and the text beside it. */
function stampBox(corner: StampCorner, { width, height }: PageSize, moduleCount: number) {
  const codeSide = moduleCount * MODULE;
  const quiet = QUIET_MODULES * MODULE;
  const right = corner.endsWith("right");
  const top = corner.startsWith("top");
  const codeX = right ? width - EDGE_MARGIN - codeSide : EDGE_MARGIN;
  const codeY = top ? height - EDGE_MARGIN - codeSide : EDGE_MARGIN;
  const textX = right ? codeX - quiet - TEXT_WIDTH : codeX + codeSide + quiet;
  return {
    code: { x: codeX, y: codeY, side: codeSide },
    text: { x: textX, y: codeY, right },
    bounds: { left: Math.min(codeX - quiet, textX), right: Math.max(codeX + codeSide + quiet, textX + TEXT_WIDTH), bottom: codeY - quiet, top: codeY + codeSide + quiet },
  };
}

/** Version 1 codes (21 modules) for a class set; the box is sized for the largest code a batch can print. */
const PLANNED_MODULES = 25;

/**
 * Where the stamp of each page goes (pages of `pageSizes`, in order): a pure function, so that a preview
 * can say which pages' stamps will cover an area without stamping anything. `overlaps` holds the
 * very objects of `keepClear` the stamp covers.
 */
export function placeStamps<Area extends PageRect>(pageSizes: PageSize[], keepClear: Area[]): PagePlacement<Area>[] {
  return pageSizes.map((size, index) => placeStamp(index + 1, size, keepClear));
}

function placeStamp<Area extends PageRect>(page: number, size: PageSize, keepClear: Area[]): PagePlacement<Area> {
  const areas = keepClear.filter((area) => area.page === page);
  let best: PagePlacement<Area> | null = null;
  let bestCovered = Infinity;
  for (const corner of CORNERS) {
    const { bounds } = stampBox(corner, size, PLANNED_MODULES);
    const overlaps = areas.filter((area) => intersects(bounds, toPoints(area, size)));
    if (overlaps.length === 0) return { page, corner, overlaps: [] };
    const covered = overlaps.reduce((sum, area) => sum + overlapArea(bounds, toPoints(area, size)), 0);
    if (covered < bestCovered) {
      bestCovered = covered;
      best = { page, corner, overlaps };
    }
  }
  return best!;
}

interface Box {
  left: number;
  right: number;
  bottom: number;
  top: number;
}

function toPoints(area: PageRect, { width, height }: PageSize): Box {
  return { left: area.x * width, right: (area.x + area.width) * width, top: height - area.y * height, bottom: height - (area.y + area.height) * height };
}

function intersects(a: Box, b: Box) {
  return a.left < b.right && b.left < a.right && a.bottom < b.top && b.bottom < a.top;
}

function overlapArea(a: Box, b: Box) {
  return Math.max(0, Math.min(a.right, b.right) - Math.max(a.left, b.left)) * Math.max(0, Math.min(a.top, b.top) - Math.max(a.bottom, b.bottom));
}

function drawStamp(page: PDFPage, corner: StampCorner, code: string, lines: [string | null, string], fonts: { font: PDFFont; bold: PDFFont }) {
  const qr = QRCode.create(code, { errorCorrectionLevel: "M" });
  const count = qr.modules.size;
  const { code: at, text, bounds } = stampBox(corner, page.getSize(), count);
  const black = rgb(0, 0, 0);
  // The paper's own header or rule may run through the corner: the stamp sits on white, so the code's
  // quiet zone is clean and the line can be read.
  page.drawRectangle({ x: bounds.left, y: bounds.bottom, width: bounds.right - bounds.left, height: bounds.top - bounds.bottom, color: rgb(1, 1, 1) });
  // One rectangle per run of dark modules in a row: a fifth of the drawing operations of one per module.
  for (let row = 0; row < count; row++) {
    let column = 0;
    while (column < count) {
      if (!qr.modules.get(row, column)) {
        column++;
        continue;
      }
      const start = column;
      while (column < count && qr.modules.get(row, column)) column++;
      page.drawRectangle({ x: at.x + start * MODULE, y: at.y + at.side - (row + 1) * MODULE, width: (column - start) * MODULE, height: MODULE, color: black });
    }
  }
  const [heading, detail] = lines;
  const detailWidth = fonts.font.widthOfTextAtSize(detail, TEXT_SIZE);
  const anchor = text.right ? at.x - TEXT_GAP : at.x + at.side + TEXT_GAP;
  const lineY = at.y + at.side / 2;
  if (heading !== null) {
    const headingWidth = fonts.bold.widthOfTextAtSize(heading, TEXT_SIZE + 1);
    page.drawText(heading, { x: text.right ? anchor - headingWidth : anchor, y: lineY + 1.5, size: TEXT_SIZE + 1, font: fonts.bold, color: black });
  }
  page.drawText(detail, { x: text.right ? anchor - detailWidth : anchor, y: lineY - TEXT_SIZE - 1.5, size: TEXT_SIZE, font: fonts.font, color: black });
}

/** QR versions 1–4 (21–33 modules): every code a batch prints, whose size moves the text beside it. */
const PRINTED_MODULE_COUNTS = [21, 25, 29, 33];

/**
 * Where each page's stamp prints its text (the student's name on scripts printed before a batch was
 * made anonymous), page-relative (0–1, origin top left) as name boxes are: the union of the text's
 * place beside every code size a batch prints, in the corner `placeStamps` chooses for the page. Pure,
 * so the redaction of an anonymous batch's scans finds the name where the print put it.
 */
export function stampTextRects(pageSizes: PageSize[], keepClear: PageRect[]): PageRect[] {
  return placeStamps(pageSizes, keepClear).map(({ page, corner }) => stampTextRect(page, corner, pageSizes[page - 1]!));
}

/** The text's place in `corner` of a page of `size`, for every code size, page-relative. */
export function stampTextRect(page: number, corner: StampCorner, size: PageSize): PageRect {
  const boxes = PRINTED_MODULE_COUNTS.map((count) => {
    const { code } = stampBox(corner, size, count);
    const left = corner.endsWith("right") ? code.x - TEXT_WIDTH : code.x + code.side;
    return { left, right: left + TEXT_WIDTH, bottom: code.y, top: code.y + code.side };
  });
  const left = Math.min(...boxes.map((box) => box.left));
  const right = Math.max(...boxes.map((box) => box.right));
  const bottom = Math.min(...boxes.map((box) => box.bottom));
  const top = Math.max(...boxes.map((box) => box.top));
  const clamp = (share: number) => Math.min(1, Math.max(0, share));
  const x = clamp(left / size.width);
  const y = clamp(1 - top / size.height);
  return { page, x, y, width: clamp(right / size.width) - x, height: clamp(1 - bottom / size.height) - y };
}

/** Every corner a stamp can take: where a page whose printed page is unknown may carry its text. */
export const STAMP_CORNERS: readonly StampCorner[] = CORNERS;

/**
 * The line as the font draws it (server/pdf/fonts.ts: names in Latin, Greek and Cyrillic print as
 * written), cut to fit beside the code. The QR code, not this line, says whose script it is.
 */
function printable(text: string, font: PDFFont): string {
  let result = drawableText(text, font);
  while (font.widthOfTextAtSize(result, TEXT_SIZE + 1) > TEXT_WIDTH - TEXT_GAP && result.length > 1) result = `${result.slice(0, -2)}…`;
  return result;
}

/**
 * Where the print put a page's code (page-relative, 0–1, origin top left): the code `text` in the corner
 * `placeStamps` chooses for page `page` of a paper of `pageSizes` with `keepClear`. Pure: the tick
 * reader aligns a scan by the code's corners (server/exam/ticks/align.ts).
 */
export function printedCodeRect(pageSizes: PageSize[], keepClear: PageRect[], page: number, text: string): PageRect {
  const size = pageSizes[page - 1]!;
  const { corner } = placeStamps(pageSizes, keepClear)[page - 1]!;
  const { code } = stampBox(corner, size, QRCode.create(text, { errorCorrectionLevel: "M" }).modules.size);
  return { page, x: code.x / size.width, y: 1 - (code.y + code.side) / size.height, width: code.side / size.width, height: code.side / size.height };
}
