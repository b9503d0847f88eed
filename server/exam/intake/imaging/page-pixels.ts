import { PDFArray, type PDFDocument, PDFName, type PDFPage, PDFRawStream, PDFDict } from "pdf-lib";
import sharp from "sharp";
import { DECODE_PIXEL_LIMIT, cappedDpi, cappedSize, checkPageStreams } from "./limits";
import { type GreyImage, renderPageGrey } from "./pdfjs";

/**
 * Resolution at which a page that is not one scanned JPEG is rendered: codes print with 0.85 mm modules,
 * ~7 px each. A page larger than A3 is rendered at less, within PAGE_PIXEL_CAP (limits.ts).
 */
const RENDER_DPI = 200;

/** A page's pixels and the resolution they have on paper. */
export interface PagePixels extends GreyImage {
  dpi: number;
}

/**
 * The pixels of one page, unrotated (as the page's content lies before its /Rotate), in greyscale.
 * A scanned page is usually one JPEG drawn over the whole page: its bytes are decoded as they are, which
 * is both faster and sharper than rendering. Anything else is rendered by pdfjs. Null when neither works.
 * `document` is a one-page PDF's pdf-lib document and `bytes` that PDF. A page beyond the limits of
 * limits.ts is refused (AppError "invalid") before anything decodes it.
 */
export async function pagePixels(document: PDFDocument, bytes: Uint8Array, { halveFrom }: { halveFrom?: number } = {}): Promise<PagePixels | null> {
  // Nothing is decoded before its streams are checked (limits.ts): an AppError with the reason otherwise.
  await checkPageStreams(document, 1);
  const page = document.getPage(0);
  const jpeg = scannedJpeg(page);
  if (jpeg) {
    try {
      // Decoded no larger than the cap: libjpeg shrinks while decoding (1/2, 1/4, 1/8), then a resize.
      const image = sharp(jpeg, { failOn: "none", limitInputPixels: DECODE_PIXEL_LIMIT, sequentialRead: true });
      const declared = await image.metadata();
      let size = cappedSize(declared.width ?? 1, declared.height ?? 1);
      // `halveFrom`: a scan of that resolution or more is decoded at half (libjpeg shrinks while decoding: a quarter of the work).
      const declaredDpi = ((declared.width ?? 1) / unrotatedSize(page).width) * 72;
      if (halveFrom !== undefined && declaredDpi >= halveFrom) size = { width: Math.floor(size.width / 2), height: Math.floor(size.height / 2) };
      const scaled = size.width === declared.width && size.height === declared.height ? image : image.resize(size.width, size.height, { fit: "fill" });
      const { data, info } = await scaled.toColourspace("b-w").raw().toBuffer({ resolveWithObject: true });
      const { width } = unrotatedSize(page);
      return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height, dpi: (info.width / width) * 72 };
    } catch {
      // A JPEG that sharp cannot decode may still be drawn by pdfjs (it has its own decoder).
    }
  }
  const { width, height } = unrotatedSize(page);
  const dpi = cappedDpi(width, height, RENDER_DPI);
  const image = await renderPageGrey(bytes, 1, dpi);
  return image && { ...image, dpi };
}

/** The page's size in points before its /Rotate (pdf-lib's getSize is its media box). */
const unrotatedSize = (page: PDFPage) => page.getSize();

/**
 * The JPEG bytes of a page that is one scanned image: no text and exactly one image, DCT-encoded only,
 * with the page's proportions (so it covers the page). Null otherwise.
 */
function scannedJpeg(page: PDFPage): Uint8Array | null {
  const resources = page.node.Resources();
  if (!resources) return null;
  if (resources.lookupMaybe(PDFName.of("Font"), PDFDict)?.keys().length) return null;
  const xObjects = resources.lookupMaybe(PDFName.of("XObject"), PDFDict);
  const names = xObjects?.keys() ?? [];
  if (!xObjects || names.length !== 1) return null;
  const image = xObjects.lookup(names[0]!);
  if (!(image instanceof PDFRawStream)) return null;
  const dict = image.dict;
  if (dict.get(PDFName.of("Subtype")) !== PDFName.of("Image")) return null;
  const filter = dict.lookup(PDFName.of("Filter"));
  const onlyDct = filter === PDFName.of("DCTDecode") || (filter instanceof PDFArray && filter.size() === 1 && filter.lookup(0) === PDFName.of("DCTDecode"));
  if (!onlyDct || dict.get(PDFName.of("SMask")) || dict.get(PDFName.of("Mask")) || dict.get(PDFName.of("Decode"))) return null;
  const width = Number(dict.lookup(PDFName.of("Width"))?.toString());
  const height = Number(dict.lookup(PDFName.of("Height"))?.toString());
  const size = unrotatedSize(page);
  if (!(width > 0 && height > 0) || Math.abs(width / height - size.width / size.height) > 0.02 * (size.width / size.height)) return null;
  return image.getContents();
}
