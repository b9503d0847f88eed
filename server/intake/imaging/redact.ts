import { degrees, PDFDocument } from "pdf-lib";
import sharp from "sharp";
import { AppError } from "../../errors";
import type { QuarterTurn } from "../page-reading";
import type { PageRect } from "../stamp";
import { pagePixels } from "./page-pixels";
import { paintOver } from "./pile";

/**
 * A script's PDF with the name written on it removed, for an anonymous batch: page `rect.page` is
 * replaced by a picture of itself, upright, in which the name box (with the crop's margin, a scan being
 * shifted by a few millimetres) is painted over. A cover drawn over the page would leave the scan's
 * own image, name and all, in the file; the new page holds no pixel of it. Only that page changes, in
 * greyscale (as the name crop is). A PDF without that page comes back as it is.
 */
export async function redactNameBox(scriptPdf: Uint8Array, rect: PageRect): Promise<Uint8Array> {
  let script: PDFDocument;
  let pageCount: number;
  let picture: PagePicture;
  const index = rect.page - 1;
  try {
    script = await PDFDocument.load(scriptPdf, { ignoreEncryption: true, updateMetadata: false });
    pageCount = script.getPageCount();
    if (index >= pageCount) return scriptPdf;
    picture = await redactedPicture(script, index, rect);
  } catch {
    // Shown as it is, it could show the name: it is not shown.
    throw new AppError(
      "conflict",
      "This scan cannot be read, so the name written on it cannot be hidden: in an anonymous batch it is not shown. Ask the batch's owner to scan the script again.",
    );
  }
  // A new document of the pages: the original page's objects (its image above all) are copied into it
  // by nobody, where removing the page from the old one would leave them in the file.
  const redacted = await PDFDocument.create({ updateMetadata: false });
  redacted.setCreator("Markbook");
  redacted.setProducer("Markbook");
  const others = await redacted.copyPages(script, [...Array(pageCount).keys()].filter((page) => page !== index));
  const image = picture.jpeg && (await redacted.embedJpg(picture.jpeg));
  // A page without pixels becomes a blank page, which shows no name either.
  const addPicture = () => {
    const page = redacted.addPage([picture.width, picture.height]);
    if (image) page.drawImage(image, { x: 0, y: 0, width: picture.width, height: picture.height });
  };
  others.forEach((page, position) => {
    if (position === index) addPicture();
    redacted.addPage(page);
  });
  if (index === pageCount - 1) addPicture();
  return redacted.save();
}

interface PagePicture {
  /** The page as shown, in points. */
  width: number;
  height: number;
  /** The page upright with the name painted over, as JPEG; null when the page has no pixels. */
  jpeg: Buffer | null;
}

async function redactedPicture(script: PDFDocument, index: number, rect: PageRect): Promise<PagePicture> {
  const single = await PDFDocument.create({ updateMetadata: false });
  const [copied] = await single.copyPages(script, [index]);
  // The page's pixels come unrotated; its /Rotate says how it shows, and the name box is on the page as shown.
  const rotation = (((copied!.getRotation().angle % 360) + 360) % 360) as QuarterTurn;
  copied!.setRotation(degrees(0));
  single.addPage(copied);
  const { width: mediaWidth, height: mediaHeight } = copied!.getSize();
  const [width, height] = rotation % 180 === 0 ? [mediaWidth, mediaHeight] : [mediaHeight, mediaWidth];
  const pixels = await pagePixels(single, await single.save({ useObjectStreams: false }));
  if (!pixels) return { width, height, jpeg: null };
  const upright = await sharp(pixels.data, { raw: { width: pixels.width, height: pixels.height, channels: 1 } })
    .rotate(rotation)
    .toColourspace("b-w")
    .raw()
    .toBuffer({ resolveWithObject: true });
  paintOver(upright.data, upright.info.width, upright.info.height, rect);
  const jpeg = await sharp(upright.data, { raw: { width: upright.info.width, height: upright.info.height, channels: 1 } }).jpeg({ quality: 80 }).toBuffer();
  return { width, height, jpeg };
}
