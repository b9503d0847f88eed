import { degrees, PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { AppError } from "../../../errors";
import type { AssemblyPage, PageReading, QuarterTurn } from "../page-reading";
import type { PageRect } from "../stamp";
import { openCheckedPdf } from "./inspect";
import { checkPageStreams } from "./limits";
import { type PagePixels, pagePixels } from "./page-pixels";
import { type PageCodeReading, readPageCode } from "./qr";
import { type OpenAreaLayout, openAreaLayout, readLaidOutAreas } from "./read-areas";
import type { PileAreaLayout, PileAreaReading } from "../../ticks/reading";

/**
 * The imaging work itself, on whatever thread calls it: the worker (server/exam/intake/imaging/worker.ts) in
 * the app, the app thread in the benchmark's baseline. Opening a pile, cutting a page out of it, reading
 * its code; joining pages into a script; cropping the name box.
 */

export interface OpenPile {
  document: PDFDocument;
  pageCount: number;
  /** The batch's areas, read on each page whose code names a page of them (null: codes only). */
  areas: OpenAreaLayout | null;
  /** The page after the last one read, being cut out and decoded meanwhile (readPilePage). */
  next?: { pilePage: number; cut: Promise<CutPage> };
}

/** A page of a pile cut out as a one-page PDF and its pixels decoded, before its code is read. */
interface CutPage {
  onePagePdf: Uint8Array;
  /** False when the page could not be cut out (a broken object): an empty page of its size stands in. */
  whole: boolean;
  pixels: PagePixels | null;
}

/**
 * Opens a pile and checks it before any page is read (openCheckedPdf): a file pdf-lib cannot parse, a
 * page tree that loops or unfolds beyond `maxPages` pages, and a page larger than any paper are refused
 * with the teacher's reason (AppError "invalid": the file itself, so never retried).
 */
export async function openPile(pdf: Uint8Array, { maxPages = Number.MAX_SAFE_INTEGER, areas }: { maxPages?: number; areas?: PileAreaLayout } = {}): Promise<OpenPile> {
  // The layout first: an absurd one is refused before the pile's pages are counted, as the areas' (param "areas"), not the pile's.
  const layout = areas
    ? await openAreaLayout(areas).catch((error: unknown) => {
        throw error instanceof AppError ? new AppError(error.code, error.message, "areas") : error;
      })
    : null;
  return { ...(await openCheckedPdf(pdf, { maxPages, what: "pile" })), areas: layout };
}

/**
 * Page `pilePage` (1-based) of an open pile, read: the page alone as a PDF, and its code; when the pile
 * was opened with its batch's areas and the code names a page of them, that page's areas too, on the
 * same decoded pixels and from the code's corners already found (read-areas.ts, readAreasOnPixels).
 * The next page is cut out and decoded meanwhile (libvips decodes off this thread), so its decoding
 * overlaps this page's code and areas: at most two pages' pixels are held at once.
 */
export async function readPilePage(pile: OpenPile, pilePage: number): Promise<PageReading> {
  const cut = await (pile.next?.pilePage === pilePage ? pile.next.cut : cutPage(pile, pilePage));
  pile.next = undefined;
  if (pilePage < pile.pageCount) {
    const next = cutPage(pile, pilePage + 1);
    // Its failure (a page beyond the limits) is the next request's, should it come.
    next.catch(() => undefined);
    pile.next = { pilePage: pilePage + 1, cut: next };
  }
  const { onePagePdf, whole, pixels } = cut;
  if (!whole) return { pilePage, pileSize: pile.pageCount, onePagePdf, code: null, rotation: 0 };
  const reading = await readCode(pixels);
  const { code, rotation } = reading;
  const areaReading = pile.areas && pixels ? await readAreasOf(pile.areas, pixels, reading) : null;
  return { pilePage, pileSize: pile.pageCount, onePagePdf, code, rotation, ...(pile.areas ? { areaReading } : {}) };
}

/** Page `pilePage` of the pile cut out alone and decoded; a page beyond the limits refuses the whole pile (AppError). */
async function cutPage(pile: OpenPile, pilePage: number): Promise<CutPage> {
  const single = await PDFDocument.create({ updateMetadata: false });
  let onePagePdf: Uint8Array;
  try {
    const [page] = await single.copyPages(pile.document, [pilePage - 1]);
    single.addPage(page);
    onePagePdf = await single.save({ useObjectStreams: false });
  } catch (error) {
    if (error instanceof AppError) throw error;
    // The page cannot even be cut out (a broken object): it is kept as an empty page of its size, so
    // it is still counted, placed and shown, and never lost.
    return { onePagePdf: await emptyPageLike(pile, pilePage), whole: false, pixels: null };
  }
  // Refused before any decoder sees it (a picture claiming absurd pixels, a stream bomb): the whole pile fails.
  await checkPageStreams(single, pilePage);
  let pixels: PagePixels | null = null;
  try {
    pixels = await pagePixels(single, onePagePdf);
  } catch {
    // Pixels that cannot be decoded: a page without a code.
  }
  return { onePagePdf, whole: true, pixels };
}

/** The page's areas, or null when they cannot be read (filing reads them again on its own, readAreas). */
async function readAreasOf(layout: OpenAreaLayout, pixels: PagePixels, code: PageCodeReading): Promise<PileAreaReading | null> {
  try {
    return await readLaidOutAreas(layout, pixels, code);
  } catch {
    return null;
  }
}

async function emptyPageLike(pile: OpenPile, pilePage: number) {
  const empty = await PDFDocument.create({ updateMetadata: false });
  let size: [number, number] = [595.28, 841.89];
  try {
    const { width, height } = pile.document.getPage(pilePage - 1).getSize();
    size = [width, height];
  } catch {
    // A page without a readable size: A4.
  }
  empty.addPage(size);
  return empty.save();
}

/** The code on a page's pixels; none when it has none or no readable code. */
async function readCode(pixels: PagePixels | null): Promise<PageCodeReading> {
  if (!pixels) return { code: null, rotation: 0 };
  try {
    return await readPageCode(pixels);
  } catch {
    return { code: null, rotation: 0 };
  }
}

/** One PDF of the pages in order, each page's /Rotate set so it shows upright. */
export async function assembleScript(pages: AssemblyPage[]): Promise<Uint8Array> {
  const script = await PDFDocument.create({ updateMetadata: false });
  script.setCreator("Markbook");
  script.setProducer("Markbook");
  for (const { onePagePdf, rotation } of pages) {
    const source = await PDFDocument.load(onePagePdf, { ignoreEncryption: true, updateMetadata: false });
    const [page] = await script.copyPages(source, [0]);
    // The reading's rotation is relative to the page's content before any /Rotate the scanner set.
    page!.setRotation(degrees(rotation));
    script.addPage(page);
  }
  return script.save();
}

/** Extra margin around the name box, as a share of the page: a scan is shifted by a few millimetres. */
export const CROP_MARGIN = 0.02;

/** The grey a name box is painted over with (anonymous marking): plainly a cover, not blank paper. */
const COVER_GREY = 128;

/** Paints a page-relative rectangle (origin top left, widened by the crop's margin) of a greyscale image. */
export function paintOver(data: Buffer, width: number, height: number, rect: Omit<PageRect, "page">) {
  const left = Math.floor(clamp(rect.x - CROP_MARGIN) * width);
  const right = Math.ceil(clamp(rect.x + rect.width + CROP_MARGIN) * width);
  const top = Math.floor(clamp(rect.y - CROP_MARGIN) * height);
  const bottom = Math.ceil(clamp(rect.y + rect.height + CROP_MARGIN) * height);
  for (let row = top; row < bottom; row++) data.fill(COVER_GREY, row * width + left, row * width + right);
}

/**
 * The first page of a scanned PDF as grey pixels turned upright by `rotation`, `covers` (page-relative on
 * the upright page) painted over: what the crops of a scan are cut from. Null when the page has no pixels.
 */
export async function uprightScanPixels(onePagePdf: Uint8Array, rotation: QuarterTurn, covers: Omit<PageRect, "page">[], maxPages = 1) {
  const { document, pageCount } = await openCheckedPdf(onePagePdf, { maxPages, what: "scan" });
  if (pageCount === 0) return null;
  await checkPageStreams(document, 1);
  const pixels = await pagePixels(document, onePagePdf);
  if (!pixels) return null;
  const upright = await sharp(pixels.data, { raw: { width: pixels.width, height: pixels.height, channels: 1 } })
    .rotate(rotation)
    .toColourspace("b-w")
    .raw()
    .toBuffer({ resolveWithObject: true });
  for (const cover of covers) paintOver(upright.data, upright.info.width, upright.info.height, cover);
  return upright;
}

/**
 * The name box of a scanned page, upright, as a JPEG: `rect` is page-relative (0–1, origin top left)
 * on the upright page, as the template stores it; with `cover`, that rectangle is painted over first
 * (a page of an anonymous batch shown to a marker). Null when the page has no pixels.
 */
export async function nameBoxCrop(onePagePdf: Uint8Array, rotation: QuarterTurn, rect: Omit<PageRect, "page">, cover?: Omit<PageRect, "page">): Promise<Uint8Array | null> {
  const upright = await uprightScanPixels(onePagePdf, rotation, cover ? [cover] : [], Number.MAX_SAFE_INTEGER);
  if (!upright) return null;
  const { width, height, channels } = upright.info;
  const left = clamp(rect.x - CROP_MARGIN) * width;
  const top = clamp(rect.y - CROP_MARGIN) * height;
  const right = clamp(rect.x + rect.width + CROP_MARGIN) * width;
  const bottom = clamp(rect.y + rect.height + CROP_MARGIN) * height;
  const region = { left: Math.floor(left), top: Math.floor(top), width: Math.max(1, Math.round(right - left)), height: Math.max(1, Math.round(bottom - top)) };
  region.width = Math.min(region.width, width - region.left);
  region.height = Math.min(region.height, height - region.top);
  const jpeg = await sharp(upright.data, { raw: { width, height, channels } }).extract(region).toColourspace("b-w").jpeg({ quality: 85 }).toBuffer();
  return new Uint8Array(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength);
}

const clamp = (share: number) => Math.min(1, Math.max(0, share));
