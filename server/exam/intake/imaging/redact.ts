import { degrees, PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { AppError } from "../../../errors";
import type { QuarterTurn } from "../page-reading";
import type { PageRect } from "../stamp";
import { openCheckedPdf } from "./inspect";
import { type PagePixels, pagePixels } from "./page-pixels";
import { paintOver } from "./pile";

/**
 * A rectangle to paint over in a script of an anonymous batch: page-relative (0–1, origin top left, on
 * the page as shown) on page `page` (1-based), or on every page when `page` is 0.
 */
export type Cover = PageRect;

/**
 * A script's PDF with no name left on it, for an anonymous batch: every page is replaced by a picture
 * of itself, upright, in greyscale, in which `covers` (the name box, the stamp's text, each with the
 * crop's margin, a scan being shifted by a few millimetres) are painted over. The new document holds
 * pictures only: no pixel of the scan's own images, no text layer (the printed PDF uploaded as a scan,
 * or a scanner's OCR layer, would spell the stamp's name), no metadata of the scan. A page without
 * pixels becomes a blank page of its size, which shows no name either.
 */
export async function redactScript(scriptPdf: Uint8Array, covers: Cover[]): Promise<Uint8Array> {
  const pictures: PagePicture[] = [];
  try {
    // Opened with the intake's checks (a page-tree loop, a lying page count), as every sent PDF is.
    const { document: script, pageCount } = await openCheckedPdf(scriptPdf, { maxPages: Number.MAX_SAFE_INTEGER, what: "scan" });
    for (let index = 0; index < pageCount; index++) {
      const page = index + 1;
      pictures.push(await redactedPicture(script, index, covers.filter((cover) => cover.page === page || cover.page === 0)));
    }
  } catch {
    // Shown as it is, it could show the name: it is not shown.
    throw new AppError(
      "conflict",
      "This scan cannot be read, so the name written on it cannot be hidden: in an anonymous batch it is not shown. Ask the batch's owner to scan the script again.",
    );
  }
  const redacted = await PDFDocument.create({ updateMetadata: false });
  redacted.setCreator("Markbook");
  redacted.setProducer("Markbook");
  for (const picture of pictures) {
    const page = redacted.addPage([picture.width, picture.height]);
    if (picture.jpeg) page.drawImage(await redacted.embedJpg(picture.jpeg), { x: 0, y: 0, width: picture.width, height: picture.height });
  }
  return redacted.save();
}

/**
 * One scanned page (a one-page PDF), upright (`rotation`), as a greyscale JPEG with `covers` painted
 * over: a pile page of an anonymous batch shown to a marker. Null when the page has no pixels.
 */
export async function redactedPageImage(onePagePdf: Uint8Array, rotation: QuarterTurn, covers: Omit<PageRect, "page">[]): Promise<Uint8Array | null> {
  let pixels: Awaited<ReturnType<typeof pagePixels>>;
  try {
    pixels = await pagePixels((await openCheckedPdf(onePagePdf, { maxPages: Number.MAX_SAFE_INTEGER, what: "scan" })).document, onePagePdf);
  } catch {
    throw new AppError("conflict", "This page cannot be read, so the names on it cannot be hidden: in an anonymous batch it is not shown.");
  }
  if (!pixels) return null;
  const jpeg = await coveredJpeg(pixels, rotation, covers, 85);
  return new Uint8Array(jpeg.buffer, jpeg.byteOffset, jpeg.byteLength);
}

interface PagePicture {
  /** The page as shown, in points. */
  width: number;
  height: number;
  /** The page upright with the covers painted, as JPEG; null when the page has no pixels. */
  jpeg: Buffer | null;
}

async function redactedPicture(script: PDFDocument, index: number, covers: Cover[]): Promise<PagePicture> {
  const single = await PDFDocument.create({ updateMetadata: false });
  const [copied] = await single.copyPages(script, [index]);
  // The page's pixels come unrotated; its /Rotate says how it shows, and the covers are on the page as shown.
  const rotation = (((copied!.getRotation().angle % 360) + 360) % 360) as QuarterTurn;
  copied!.setRotation(degrees(0));
  single.addPage(copied);
  const { width: mediaWidth, height: mediaHeight } = copied!.getSize();
  const [width, height] = rotation % 180 === 0 ? [mediaWidth, mediaHeight] : [mediaHeight, mediaWidth];
  const pixels = await pagePixels(single, await single.save({ useObjectStreams: false }));
  if (!pixels) return { width, height, jpeg: null };
  return { width, height, jpeg: await coveredJpeg(pixels, rotation, covers, 80) };
}

/** A page's pixels turned upright, `covers` painted over (page-relative, on the upright page), as a greyscale JPEG. */
async function coveredJpeg(pixels: PagePixels, rotation: QuarterTurn, covers: Omit<PageRect, "page">[], quality: number): Promise<Buffer> {
  const upright = await sharp(pixels.data, { raw: { width: pixels.width, height: pixels.height, channels: 1 } })
    .rotate(rotation)
    .toColourspace("b-w")
    .raw()
    .toBuffer({ resolveWithObject: true });
  for (const cover of covers) paintOver(upright.data, upright.info.width, upright.info.height, cover);
  return sharp(upright.data, { raw: { width: upright.info.width, height: upright.info.height, channels: 1 } }).jpeg({ quality }).toBuffer();
}
