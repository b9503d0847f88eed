import { Readable } from "node:stream";
import zlib from "node:zlib";
import { PDFArray, PDFDict, type PDFDocument, PDFName, PDFNumber, PDFRawStream, PDFRef } from "pdf-lib";
import { AppError } from "../../../errors";

/**
 * What one page of a file a person sent may cost the imaging, checked before any decoder sees it
 * (decisions.md, "Every page is bounded before it is decoded"):
 * - the pixels made of a page (a rendered page, a decoded scan) are at most PAGE_PIXEL_CAP: a larger page
 *   is scaled down to it, which still reads a code (A4 at 300 dpi is 8.7 megapixels);
 * - an image that declares more than DECODE_PIXEL_LIMIT (in its dictionary or its JPEG header), a page
 *   larger than MAX_PAGE_SIDE_CM on a side, and a stream that inflates beyond what it can hold are
 *   refused with a sentence; the decoders' own limits (sharp's limitInputPixels, pdfjs's maxImageSize)
 *   are the same numbers, so a check missed here is still refused by the decoder.
 */

/** The most pixels any page image made by the imaging has (12 megapixels: A3 at 250 dpi). */
export const PAGE_PIXEL_CAP = 12_000_000;
/** The most pixels an image may declare before it is decoded (50 megapixels: A4 at 600 dpi is 35). */
export const DECODE_PIXEL_LIMIT = 50_000_000;
/** The largest page side, in centimetres: larger than A0's long side (118.9 cm) is no scanned paper. */
const MAX_PAGE_SIDE_CM = 120;
/** The most bytes a stream that is not an image (drawing instructions, a font) may inflate to. */
const MAX_INFLATED_STREAM_BYTES = 32 * 1024 * 1024;

const POINTS_PER_CM = 72 / 2.54;
const cm = (points: number) => Math.round(points / POINTS_PER_CM);
const megapixels = (pixels: number) => Math.round(pixels / 1_000_000);

/** The resolution (dpi) at which a page of `width` × `height` points stays within PAGE_PIXEL_CAP, at most `dpi`. */
export function cappedDpi(width: number, height: number, dpi: number): number {
  const area = Math.max(1, width) * Math.max(1, height);
  return Math.min(dpi, Math.sqrt(PAGE_PIXEL_CAP / area) * 72);
}

/** The size to scale an image to so it stays within PAGE_PIXEL_CAP (itself when it does). */
export function cappedSize(width: number, height: number): { width: number; height: number } {
  const pixels = width * height;
  if (pixels <= PAGE_PIXEL_CAP) return { width, height };
  const scale = Math.sqrt(PAGE_PIXEL_CAP / pixels);
  return { width: Math.max(1, Math.floor(width * scale)), height: Math.max(1, Math.floor(height * scale)) };
}

/** `page` null: the whole file was checked at once (a paper), and the sentence names no page. */
const refuse = (what: string, page: number | null) =>
  new AppError("invalid", `${page === null ? "This PDF" : `Page ${page} of this PDF`} cannot be read: ${what}. Scan it again, or export the PDF again.`, "file");

/** Refuses a page larger than MAX_PAGE_SIDE_CM on a side (its media box, in points). */
export function checkPageSize(width: number, height: number, page: number) {
  if (!(Number.isFinite(width) && Number.isFinite(height))) throw refuse("it has no valid size", page);
  const side = MAX_PAGE_SIDE_CM * POINTS_PER_CM;
  if (Math.abs(width) > side || Math.abs(height) > side) {
    throw refuse(`it is ${cm(Math.abs(width))} × ${cm(Math.abs(height))} cm, larger than any paper (the largest page read is ${MAX_PAGE_SIDE_CM} cm on a side)`, page);
  }
}

/**
 * Checks every stream of a one-page PDF (`document` holds only what its page uses) before anything
 * decodes it: images by the pixels they declare (and a JPEG by its own header), Flate streams by what
 * they inflate to (an image to its declared size, anything else to MAX_INFLATED_STREAM_BYTES).
 * Inflating is counted in a stream and thrown away, a megabyte at a time.
 */
export async function checkPageStreams(document: PDFDocument, page: number | null) {
  if (checked.has(document)) return;
  try {
    await checkStreams(document, page);
  } catch (error) {
    if (error instanceof AppError) throw error;
    // pdf-lib's own error on a damaged dictionary (a filter that is not a name, a broken reference).
    throw refuse("it is damaged", page);
  }
  checked.add(document);
}

async function checkStreams(document: PDFDocument, page: number | null) {
  for (const [, object] of document.context.enumerateIndirectObjects()) {
    if (!(object instanceof PDFRawStream)) continue;
    const dict = object.dict;
    const isImage = dict.get(PDFName.of("Subtype")) === PDFName.of("Image");
    const filters = filterNames(dict);
    let inflateLimit = MAX_INFLATED_STREAM_BYTES;
    if (isImage) {
      const width = numberIn(dict, "Width");
      const height = numberIn(dict, "Height");
      if (width * height > DECODE_PIXEL_LIMIT) throw refuse(tooManyPixels(width, height), page);
      if (filters.includes("DCTDecode")) {
        const frame = jpegFrameSize(object.getContents());
        if (frame && frame.width * frame.height > DECODE_PIXEL_LIMIT) throw refuse(tooManyPixels(frame.width, frame.height), page);
      }
      const components = 4;
      const bits = Math.max(1, numberIn(dict, "BitsPerComponent") || 8);
      inflateLimit = Math.ceil((width * components * bits) / 8 + 1) * height + 64 * 1024;
    }
    if (filters[0] === "FlateDecode" && !(await inflatesWithin(object.getContents(), inflateLimit))) {
      throw refuse(isImage ? "one of its pictures holds more data than its size allows" : `its content unpacks to more than ${Math.round(MAX_INFLATED_STREAM_BYTES / 1024 / 1024)} MB`, page);
    }
  }
}

/** Documents whose streams passed, so that a page checked by its reader is not inflated again to be decoded. */
const checked = new WeakSet<PDFDocument>();

const tooManyPixels = (width: number, height: number) =>
  `a picture on it claims ${width} × ${height} pixels (${megapixels(width * height)} megapixels; the most read is ${megapixels(DECODE_PIXEL_LIMIT)})`;

function numberIn(dict: PDFDict, key: string): number {
  const value = dict.lookup(PDFName.of(key));
  return value instanceof PDFNumber ? value.asNumber() : 0;
}

function filterNames(dict: PDFDict): string[] {
  const filter = dict.lookup(PDFName.of("Filter"));
  if (filter instanceof PDFName) return [filter.decodeText()];
  if (filter instanceof PDFArray) return filter.asArray().map((entry) => (entry instanceof PDFRef ? dict.context.lookup(entry) : entry)).map((entry) => (entry instanceof PDFName ? entry.decodeText() : ""));
  return [];
}

/** Whether `data` (zlib) inflates to at most `limit` bytes; damaged data counts as within (its decoder stops early too). */
async function inflatesWithin(data: Uint8Array, limit: number): Promise<boolean> {
  const inflate = zlib.createInflate({ chunkSize: 1024 * 1024, finishFlush: zlib.constants.Z_SYNC_FLUSH });
  let total = 0;
  try {
    for await (const chunk of Readable.from([Buffer.from(data.buffer, data.byteOffset, data.byteLength)]).pipe(inflate)) {
      total += (chunk as Buffer).length;
      if (total > limit) return false;
    }
  } catch {
    return true;
  } finally {
    inflate.destroy();
  }
  return true;
}

/** A JPEG's frame size as its header (SOF marker) says, or null when none is found in its first markers. */
function jpegFrameSize(jpeg: Uint8Array): { width: number; height: number } | null {
  let at = 0;
  // Some writers put bytes before the start of image.
  while (at < Math.min(jpeg.length - 1, 1024) && !(jpeg[at] === 0xff && jpeg[at + 1] === 0xd8)) at++;
  at += 2;
  for (let markers = 0; markers < 256 && at + 9 < jpeg.length; markers++) {
    if (jpeg[at] !== 0xff) return null;
    const marker = jpeg[at + 1]!;
    if (marker === 0xff) {
      at++;
      continue;
    }
    const length = (jpeg[at + 2]! << 8) | jpeg[at + 3]!;
    // SOF0–SOF15 except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc) {
      return { height: (jpeg[at + 5]! << 8) | jpeg[at + 6]!, width: (jpeg[at + 7]! << 8) | jpeg[at + 8]! };
    }
    if (marker === 0xda) return null;
    at += 2 + length;
  }
  return null;
}

/**
 * The pages of a document, counted by walking its page tree with every node seen once: a tree that
 * lists a node inside itself is refused (pdf-lib would recurse until its stack runs out), as is one
 * deeper than any real file or with more than `maxPages` pages (counted as they are met, so a tree
 * that unfolds into millions stops at once).
 */
export function countPages(document: PDFDocument, maxPages: number, tooMany: (atLeast: number) => AppError): number {
  const context = document.context;
  const root = document.catalog.get(PDFName.of("Pages"));
  let pages = 0;
  let visits = 0;
  const walk = (ref: unknown, path: Set<unknown>, depth: number) => {
    // A tree of nodes that list one node many times, pages or none, unfolds exponentially: it ends here.
    if (depth > 64 || ++visits > 4 * maxPages + 1000) throw damagedTree("its list of pages is nested deeper, or repeats itself more, than any real file");
    const node = ref instanceof PDFRef ? context.lookup(ref) : ref;
    if (!(node instanceof PDFDict)) return;
    const key = ref instanceof PDFRef ? ref.tag : node;
    if (path.has(key)) throw damagedTree("its list of pages loops back on itself");
    const kids = node.lookup(PDFName.of("Kids"));
    if (node.get(PDFName.of("Type")) === PDFName.of("Pages") || kids instanceof PDFArray) {
      if (!(kids instanceof PDFArray)) return;
      path.add(key);
      for (const kid of kids.asArray()) walk(kid, path, depth + 1);
      path.delete(key);
      return;
    }
    pages++;
    if (pages > maxPages) throw tooMany(pages);
  };
  walk(root, new Set(), 0);
  return pages;
}

const damagedTree = (reason: string) => new AppError("invalid", `This PDF is damaged: ${reason}. Scan it again, or export it again.`, "file");
