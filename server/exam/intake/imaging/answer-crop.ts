import sharp from "sharp";
import type { QuarterTurn } from "../page-reading";
import type { PageRect } from "../stamp";
import { uprightScanPixels } from "./pile";

/** The widest crop sent (pixels): a tick-box row or an answer area, sharp enough to read, small enough to list by the dozen. */
const MAX_CROP_WIDTH = 1200;

/**
 * One response area of a scanned page, upright, as a PNG (the answers screen's crops, issue 36): `rect`
 * is page-relative on the upright page, `covers` painted over first (the name box and stamp text of an
 * anonymous batch). At most MAX_CROP_WIDTH pixels wide. Null when the page has no pixels.
 */
export async function answerCrop(onePagePdf: Uint8Array, rotation: QuarterTurn, rect: Omit<PageRect, "page">, covers: Omit<PageRect, "page">[]): Promise<Uint8Array | null> {
  const upright = await uprightScanPixels(onePagePdf, rotation, covers);
  if (!upright) return null;
  const { width, height, channels } = upright.info;
  const clamp = (share: number) => Math.min(1, Math.max(0, share));
  const left = Math.min(width - 1, Math.floor(clamp(rect.x) * width));
  const top = Math.min(height - 1, Math.floor(clamp(rect.y) * height));
  const region = {
    left,
    top,
    width: Math.max(1, Math.min(width - left, Math.round(clamp(rect.x + rect.width) * width) - left)),
    height: Math.max(1, Math.min(height - top, Math.round(clamp(rect.y + rect.height) * height) - top)),
  };
  const png = await sharp(upright.data, { raw: { width, height, channels } })
    .extract(region)
    .resize({ width: MAX_CROP_WIDTH, withoutEnlargement: true })
    .toColourspace("b-w")
    .png({ compressionLevel: 6 })
    .toBuffer();
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}
