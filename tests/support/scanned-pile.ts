import { PDFDocument } from "pdf-lib";
import sharp, { type Sharp } from "sharp";
import { seededRandom } from "./seeded-random";
import type { QuarterTurn } from "../../server/exam/intake/page-reading";
import { type GreyImage, openForRendering } from "../../server/exam/intake/imaging/pdfjs";

/**
 * A scanned pile, made from a printed PDF (stampScripts output) as a school copier would scan it: each
 * page rendered to pixels by pdfjs, greyscale, 150–300 dpi, turned by a small angle and shifted by a few
 * millimetres, with noise, lowered contrast and a slight blur, saved as a JPEG of quality ~84, one JPEG
 * per pile page. Some pages go through upside down (or a quarter turned), one twice, one not at all,
 * and the pile is shuffled. The same seed gives the same pile. Used by the imaging tests, the intake
 * benchmark and the end-to-end intake test.
 */

export interface ScanOptions {
  /** Same seed, same pile. */
  seed: number;
  /** Scripts in the printed PDF are this many pages each. */
  pagesPerScript: number;
  /** The script number of each printed script in order (default 1, 2, 3 …). */
  scriptNumbers?: number[];
  /** One resolution for the pile, or a range each page draws from. Default 200. */
  dpi?: number | { min: number; max: number };
  /** Pages fed upside down. Default 3. */
  upsideDown?: number;
  /** Pages fed a quarter turned (90° or 270°, half each). Default 0. */
  quarterTurned?: number;
  /** One page scanned twice. Default true. */
  duplicate?: boolean;
  /** One page left out. Default true. */
  missing?: boolean;
  /** Shuffle the pile. Default true. */
  shuffle?: boolean;
  /** A harsh copier: lower contrast, more noise, more blur, lower JPEG quality. */
  harsh?: boolean;
  /**
   * Dust on the glass or a dirty drum: this share of the pixels (0–1) black or white specks in the
   * finished scan (after blur and contrast, so nothing smooths them). Default 0; 0.1–0.2 is a page a
   * plain whole-page QR read fails on.
   */
  dust?: number;
  /** Printed pages (1-based, in the printed PDF) whose code is torn off: the corner is white. */
  tornCodes?: number[];
  /** Which corner the codes are in (default top right, where stampScripts puts them on a free page). */
  codeCorner?: "top-right" | "top-left" | "bottom-right" | "bottom-left";
  /** Pages of another printed PDF (another batch) slipped into the pile: that PDF and its page numbers. */
  foreign?: { printed: Uint8Array; pages: number[] };
  /** Blank sheets in the pile. Default 0. */
  blankPages?: number;
  /** JPEG quality (default 84: ~300 kB a page at 200 dpi; harsh 72). */
  quality?: number;
}

/** What one pile page really is. `rotation` is what a reading must report: the clockwise turn that shows it upright. */
export type PileTruth =
  | { kind: "printed"; printedPage: number; scriptNumber: number; page: number; rotation: QuarterTurn; dpi: number; torn: boolean }
  | { kind: "foreign"; printedPage: number; rotation: QuarterTurn; dpi: number }
  | { kind: "blank"; dpi: number };

export interface ScannedPile {
  pdf: Uint8Array;
  /** One entry per pile page, in pile order. */
  truth: PileTruth[];
  /** Printed pages (1-based) that are not in the pile. */
  missing: number[];
  /** The printed page scanned twice, if any. */
  duplicated: number | null;
}

interface Sheet {
  source: "printed" | "foreign" | "blank";
  printedPage: number;
  /** Clockwise turn the sheet goes through the scanner with. */
  turned: QuarterTurn;
  torn: boolean;
}

export async function scanPile(printed: Uint8Array, options: ScanOptions): Promise<ScannedPile> {
  const random = seededRandom(options.seed);
  const pick = (count: number) => Math.floor(random() * count);
  const printedDoc = await openForRendering(printed);
  const foreignDoc = options.foreign ? await openForRendering(options.foreign.printed) : null;
  try {
    const torn = new Set(options.tornCodes ?? []);
    let sheets: Sheet[] = Array.from({ length: printedDoc.pageCount }, (_, index) => ({ source: "printed", printedPage: index + 1, turned: 0, torn: torn.has(index + 1) }));
    const missing: number[] = [];
    if (options.missing ?? true) missing.push(sheets.splice(pick(sheets.length), 1)[0]!.printedPage);
    let duplicated: number | null = null;
    if (options.duplicate ?? true) {
      const twice = sheets[pick(sheets.length)]!;
      duplicated = twice.printedPage;
      sheets.push({ ...twice });
    }
    for (const page of options.foreign?.pages ?? []) sheets.push({ source: "foreign", printedPage: page, turned: 0, torn: false });
    for (let blank = 0; blank < (options.blankPages ?? 0); blank++) sheets.push({ source: "blank", printedPage: 0, turned: 0, torn: false });
    const turnable = shuffled(
      sheets.filter((sheet) => sheet.source !== "blank"),
      random,
    );
    const upsideDown = options.upsideDown ?? 3;
    const quarter = options.quarterTurned ?? 0;
    turnable.slice(0, upsideDown).forEach((sheet) => (sheet.turned = 180));
    turnable.slice(upsideDown, upsideDown + quarter).forEach((sheet, index) => (sheet.turned = index % 2 === 0 ? 90 : 270));
    if (options.shuffle ?? true) sheets = shuffled(sheets, random);

    const pile = await PDFDocument.create();
    const truth: PileTruth[] = [];
    for (const sheet of sheets) {
      const dpi = resolution(options.dpi, random);
      const document = sheet.source === "foreign" ? foreignDoc! : printedDoc;
      const fed = sheet.source === "blank" ? blankSheet(dpi) : await document.render(sheet.printedPage, dpi, lyingOnGlass(dpi, random));
      if (sheet.torn) tearCorner(fed, dpi, options.codeCorner ?? "top-right");
      const jpeg = await scanSheet(fed, sheet.turned, options, random);
      const image = await pile.embedJpg(jpeg.bytes);
      const page = pile.addPage([(jpeg.width / dpi) * 72, (jpeg.height / dpi) * 72]);
      page.drawImage(image, { x: 0, y: 0, width: page.getWidth(), height: page.getHeight() });
      const rotation = ((360 - sheet.turned) % 360) as QuarterTurn;
      if (sheet.source === "blank") truth.push({ kind: "blank", dpi });
      else if (sheet.source === "foreign") truth.push({ kind: "foreign", printedPage: sheet.printedPage, rotation, dpi });
      else {
        const scriptIndex = Math.floor((sheet.printedPage - 1) / options.pagesPerScript);
        const scriptNumber = options.scriptNumbers?.[scriptIndex] ?? scriptIndex + 1;
        truth.push({ kind: "printed", printedPage: sheet.printedPage, scriptNumber, page: ((sheet.printedPage - 1) % options.pagesPerScript) + 1, rotation, dpi, torn: sheet.torn });
      }
    }
    return { pdf: await pile.save(), truth, missing, duplicated };
  } finally {
    await printedDoc.close();
    await foreignDoc?.close();
  }
}

const MM_PER_INCH = 25.4;

function resolution(dpi: ScanOptions["dpi"], random: () => number): number {
  if (dpi === undefined) return 200;
  if (typeof dpi === "number") return dpi;
  return Math.round(dpi.min + random() * (dpi.max - dpi.min));
}

/** An A4 sheet of paper, nothing on it. */
function blankSheet(dpi: number): GreyImage {
  const width = Math.round((210 / MM_PER_INCH) * dpi);
  const height = Math.round((297 / MM_PER_INCH) * dpi);
  return { data: new Uint8Array(width * height).fill(255), width, height };
}

/**
 * How the sheet lies on the scanner's glass: turned up to 1.5° about its centre and shifted up to 3 mm
 * each way. Applied while pdfjs draws the page (a canvas transform), which costs nothing, where turning
 * the pixels afterwards costs a tenth of a second a page.
 */
function lyingOnGlass(dpi: number, random: () => number): [number, number, number, number, number, number] {
  const angle = (((random() * 2 - 1) * 1.5) / 180) * Math.PI;
  const shift = () => ((random() * 2 - 1) * 3 * dpi) / MM_PER_INCH;
  const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
  // Rotation about the page's centre (cx, cy), then the shift: x' = cos·x − sin·y + e, y' = sin·x + cos·y + f.
  const cx = (105 / MM_PER_INCH) * dpi;
  const cy = (148.5 / MM_PER_INCH) * dpi;
  return [cos, sin, -sin, cos, cx - cos * cx + sin * cy + shift(), cy - sin * cx - cos * cy + shift()];
}

/** Whites out the 50 mm square in the code's corner, as if it were torn off (a scanner sees white behind). */
function tearCorner(image: GreyImage, dpi: number, corner: NonNullable<ScanOptions["codeCorner"]>) {
  const side = Math.round((50 / MM_PER_INCH) * dpi);
  const left = corner.endsWith("right") ? image.width - side : 0;
  const top = corner.startsWith("top") ? 0 : image.height - side;
  for (let y = top; y < top + side; y++) image.data.fill(255, y * image.width + left, y * image.width + left + side);
}

/** The scanner's sensor and the copier's settings: noise, contrast, blur, the sheet's turn, JPEG. */
async function scanSheet({ data: pixels, width, height }: GreyImage, turned: QuarterTurn, options: ScanOptions, random: () => number) {
  const harsh = options.harsh ?? false;
  const scanned = new Uint8Array(width * height);
  // Roughly Gaussian sensor noise (the sum of three uniforms), from a table read at a random place per
  // row (a random number per pixel would make a 240-page pile take minutes), and a few dust specks.
  const amplitude = harsh ? 24 : 12;
  const table = new Int8Array(1 << 16);
  for (let index = 0; index < table.length; index++) table[index] = Math.round((random() + random() + random() - 1.5) * amplitude);
  for (let y = 0; y < height; y++) {
    const offset = Math.floor(random() * (table.length - width)) - y * width;
    for (let pixel = y * width; pixel < (y + 1) * width; pixel++) {
      const value = pixels[pixel]! + table[offset + pixel]!;
      scanned[pixel] = value < 0 ? 0 : value > 255 ? 255 : value;
    }
  }
  const specks = Math.round(width * height * (harsh ? 0.002 : 0.0004));
  for (let speck = 0; speck < specks; speck++) scanned[Math.floor(random() * scanned.length)] = random() < 0.5 ? 0 : 255;
  // Lowered contrast: black prints as dark grey, white as light grey.
  const [black, white] = harsh ? [85, 205] : [30, 240];
  const processed = sharp(scanned, { raw: { width, height, channels: 1 } })
    .blur(harsh ? 1.1 : 0.6)
    .linear((white - black) / 255, black)
    .rotate(turned)
    .toColourspace("b-w");
  const quality = options.quality ?? (harsh ? 72 : 84);
  const dust = options.dust ?? 0;
  if (dust > 0) {
    const { data, info } = await processed.raw().toBuffer({ resolveWithObject: true });
    for (let speck = 0; speck < data.length * dust; speck++) data[Math.floor(random() * data.length)] = random() < 0.5 ? 0 : 255;
    return jpegOf(sharp(data, { raw: { width: info.width, height: info.height, channels: 1 } }), quality);
  }
  return jpegOf(processed, quality);
}

async function jpegOf(image: Sharp, quality: number) {
  const { data, info } = await image.jpeg({ quality }).toBuffer({ resolveWithObject: true });
  return { bytes: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}

function shuffled<T>(items: T[], random: () => number): T[] {
  const result = [...items];
  for (let index = result.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1));
    [result[index], result[other]] = [result[other]!, result[index]!];
  }
  return result;
}

