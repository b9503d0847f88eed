import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import sharp, { type Sharp } from "sharp";
import { prepareZXingModule, readBarcodes, type ReadResult } from "zxing-wasm/reader";
import { PRINT_CODE_FORMAT } from "../print-code";
import type { QuarterTurn } from "../page-reading";
import type { PagePixels } from "./page-pixels";
import type { GreyImage } from "./pdfjs";

/**
 * Finds the QR code on a scanned page with zxing-cpp (zxing-wasm): each corner as it is, then the whole page, then the
 * retries measured on simulated copier piles (STACK-NOTES.md, "QR codes on scanned pages"): each corner
 * cropped and enlarged 2×, the page through a 3×3 median (salt-and-pepper noise), and for pages of
 * 250 dpi or more the page at half resolution (modules then fit the detector's expected size).
 */

const require = createRequire(import.meta.url);
let ready: Promise<unknown> | null = null;

/** zxing-wasm would fetch its wasm from a CDN: it is read from the package on disk instead. */
function loadZxing() {
  if (ready) return ready;
  const wasm = readFileSync(require.resolve("zxing-wasm/reader/zxing_reader.wasm"));
  const wasmBinary = wasm.buffer.slice(wasm.byteOffset, wasm.byteOffset + wasm.byteLength);
  ready = prepareZXingModule({ overrides: { wasmBinary }, fireImmediately: true });
  return ready;
}

/** A point in a page's pixels (x right, y down). */
interface PixelPoint {
  x: number;
  y: number;
}

/** The code's four corners as zxing found them, named as on the upright code, in the page's own pixels. */
interface CodeCorners {
  topLeft: PixelPoint;
  topRight: PixelPoint;
  bottomLeft: PixelPoint;
  bottomRight: PixelPoint;
}

export interface PageCodeReading {
  code: string | null;
  rotation: QuarterTurn;
  /** Where the code lies on the page (the image given, unrotated); absent when no code was read. */
  corners?: CodeCorners;
}

const NOTHING: PageCodeReading = { code: null, rotation: 0 };
/** Share of the page's width and height a corner crop takes: the stamp sits within 40 mm of a corner, skew and shift included. */
const CORNER_SHARE = 0.3;
const HIGH_DPI = 250;

export async function readPageCode(page: PagePixels): Promise<PageCodeReading> {
  await loadZxing();
  let fallback: PageCodeReading | null = null;
  const whole = { left: 0, top: 0, scale: 1 };
  const attempts: Array<() => Promise<{ image: GreyImage; region?: Region; at: Placement } | null>> = [
    // Each corner as it is first, where the print puts the code: a tenth of the page's pixels each,
    // where the whole page is most of a page's reading time (bench:intake).
    ...corners(page).map((corner) => async () => ({ image: page, region: corner, at: { left: corner.left, top: corner.top, scale: 1 } })),
    async () => ({ image: page, at: whole }),
    ...corners(page).map((corner) => async () => ({ image: await enlargedCorner(page, corner), at: { left: corner.left, top: corner.top, scale: 2 } })),
    async () => ({ image: await transformed(page, (image) => image.median(3)), at: whole }),
    async () => {
      if (page.dpi < HIGH_DPI) return null;
      const image = await transformed(page, (image) => image.resize(Math.round(page.width / 2), Math.round(page.height / 2)));
      return { image, at: { left: 0, top: 0, scale: image.width / page.width } };
    },
  ];
  for (const attempt of attempts) {
    const tried = await attempt();
    if (!tried) continue;
    const found = await decode(tried.image, tried.region);
    const ours = found.find((result) => result.text.startsWith(`${PRINT_CODE_FORMAT}:`));
    if (ours) return readingOf(ours, tried.at);
    fallback ??= found[0] ? readingOf(found[0], tried.at) : null;
  }
  return fallback ?? NOTHING;
}

/** Where an image tried lies on the page: its top left, and its pixels per page pixel. */
interface Placement {
  left: number;
  top: number;
  scale: number;
}

function readingOf(result: ReadResult, at: Placement): PageCodeReading {
  const point = ({ x, y }: PixelPoint) => ({ x: at.left + x / at.scale, y: at.top + y / at.scale });
  const { topLeft, topRight, bottomLeft, bottomRight } = result.position;
  return {
    code: result.text,
    rotation: uprightTurn(result.rotation),
    corners: { topLeft: point(topLeft), topRight: point(topRight), bottomLeft: point(bottomLeft), bottomRight: point(bottomRight) },
  };
}

/**
 * The code in one region of a page (where the print put it), enlarged 2× when it is not read as it is:
 * for reading ticks, whose page's code was read once already (cheaper than the whole page's retries).
 * The corners are in the page's pixels.
 */
export async function readCodeIn(page: GreyImage, region: Region): Promise<PageCodeReading> {
  await loadZxing();
  // The region as it lies, then enlarged only when that reads nothing.
  for (const scale of [1, 2] as const) {
    const found = scale === 1 ? await decode(page, region) : await decode(await enlargedCorner(page, region));
    const ours = found.find((result) => result.text.startsWith(`${PRINT_CODE_FORMAT}:`)) ?? found[0];
    if (ours) return readingOf(ours, { left: region.left, top: region.top, scale });
  }
  return NOTHING;
}

/** The codes zxing reads in `region` of an image (the whole image when none is given). */
async function decode(image: GreyImage, region: Region = { left: 0, top: 0, width: image.width, height: image.height }): Promise<ReadResult[]> {
  // zxing-wasm takes RGBA and turns it back into luminance (R = G = B gives the grey value exactly).
  const { width, height } = region;
  const rgba = new Uint8ClampedArray(width * height * 4);
  const words = new Uint32Array(rgba.buffer);
  const { data } = image;
  let pixel = 0;
  for (let y = region.top; y < region.top + height; y++) {
    const row = y * image.width + region.left;
    for (let x = 0; x < width; x++) words[pixel++] = (0xff000000 | (data[row + x]! * 0x010101)) >>> 0;
  }
  const results = await readBarcodes({ data: rgba, width, height, colorSpace: "srgb" }, { formats: ["QRCode"], maxNumberOfSymbols: 4, tryHarder: true });
  return results.filter((result) => result.isValid && result.text);
}

/**
 * zxing gives the code's rotation as the angle it is turned clockwise from upright (90 for a page
 * scanned turned a quarter clockwise, −90 or 270 for a quarter anticlockwise); turning the page back
 * upright is the opposite turn, expressed clockwise. Small skew rounds to the nearest quarter.
 */
function uprightTurn(codeRotation: number): QuarterTurn {
  const quarters = Math.round(codeRotation / 90);
  return ((((4 - quarters) % 4) + 4) % 4 * 90) as QuarterTurn;
}

export interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}

function corners({ width, height }: GreyImage): Region[] {
  const w = Math.round(width * CORNER_SHARE);
  const h = Math.round(height * CORNER_SHARE);
  // The stamp's usual corners first: top right, then bottom left (the top right of a page upside down).
  return [
    { left: width - w, top: 0, width: w, height: h },
    { left: 0, top: height - h, width: w, height: h },
    { left: width - w, top: height - h, width: w, height: h },
    { left: 0, top: 0, width: w, height: h },
  ];
}

function enlargedCorner(page: GreyImage, region: Region) {
  return transformed(page, (image) => image.extract(region).resize(region.width * 2, region.height * 2, { kernel: "cubic" }));
}

async function transformed(page: GreyImage, change: (image: Sharp) => Sharp): Promise<GreyImage> {
  const { data, info } = await change(sharp(page.data, { raw: { width: page.width, height: page.height, channels: 1 } }))
    .toColourspace("b-w")
    .raw()
    .toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}
