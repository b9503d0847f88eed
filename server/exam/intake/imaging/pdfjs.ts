import { createRequire } from "node:module";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { DECODE_PIXEL_LIMIT, PAGE_PIXEL_CAP, cappedDpi } from "./limits";

/**
 * pdfjs-dist's legacy build, loaded for Node 20. Markbook is on pdfjs-dist 5.4, the last line whose
 * engines accept Node 20 (6 declares Node 22.13 or later); 6 also used two things Node 20 lacks:
 * `Promise.withResolvers` (Node 22) and `ArrayBuffer.prototype.transferToFixedLength` (Node 21); without
 * them it fails while opening a document, not at import. So they are installed here, once, before
 * pdfjs is imported, and every use of pdfjs goes through this module. The fonts of PDFs that do not
 * embed them come from the package's own folder (there is no network to fetch them from).
 */

type PdfJs = typeof import("pdfjs-dist/legacy/build/pdf.mjs");

function installPolyfills() {
  const promise = Promise as unknown as { withResolvers?: unknown };
  if (typeof promise.withResolvers !== "function") {
    promise.withResolvers = function withResolvers<T>() {
      let resolve!: (value: T | PromiseLike<T>) => void;
      let reject!: (reason?: unknown) => void;
      const settled = new Promise<T>((yes, no) => {
        resolve = yes;
        reject = no;
      });
      return { promise: settled, resolve, reject };
    };
  }
  const prototype = ArrayBuffer.prototype as unknown as { transferToFixedLength?: unknown };
  if (typeof prototype.transferToFixedLength !== "function") {
    // A copy rather than a move: pdfjs only uses it to hand a buffer on, and never reads the old one again.
    prototype.transferToFixedLength = function transferToFixedLength(this: ArrayBuffer, length?: number) {
      const size = length ?? this.byteLength;
      const copy = new Uint8Array(size);
      copy.set(new Uint8Array(this, 0, Math.min(size, this.byteLength)));
      return copy.buffer;
    };
  }
}

let loading: Promise<PdfJs> | null = null;

export function loadPdfJs(): Promise<PdfJs> {
  installPolyfills();
  loading ??= import("pdfjs-dist/legacy/build/pdf.mjs");
  return loading;
}

const require = createRequire(import.meta.url);
/** A folder URL ending in "/", as pdfjs wants it. */
export const standardFontDataUrl = `${pathToFileURL(path.join(path.dirname(require.resolve("pdfjs-dist/package.json")), "standard_fonts")).href}/`;

/** A page's pixels, one byte of luminance per pixel, rows top to bottom. */
export interface GreyImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** An open PDF whose pages can be rendered one by one (the document is parsed once). */
export interface RenderablePdf {
  pageCount: number;
  /**
   * Page `pageNumber` (1-based) at `dpi`, as greyscale, unrotated (as the page's content lies before
   * its /Rotate, like the pixels of a scanned JPEG). `transform` (a canvas matrix in pixels, applied
   * after the page's own) moves the drawing on the canvas; what it uncovers is white.
   */
  render(pageNumber: number, dpi: number, transform?: [number, number, number, number, number, number]): Promise<GreyImage>;
  close(): Promise<void>;
}

export async function openForRendering(pdf: Uint8Array): Promise<RenderablePdf> {
  const pdfjs = await loadPdfJs();
  // pdfjs takes ownership of the data it is given (it detaches the buffer): give it a copy. Not
  // pdf.slice(): on a Node Buffer that is a view of the same memory, often Node's shared pool.
  // Its own limits are the imaging's (limits.ts): no image above DECODE_PIXEL_LIMIT is decoded, no canvas above the cap made.
  const task = pdfjs.getDocument({
    data: new Uint8Array(pdf),
    standardFontDataUrl,
    verbosity: 0,
    maxImageSize: DECODE_PIXEL_LIMIT,
    canvasMaxAreaInBytes: PAGE_PIXEL_CAP * 4,
    isOffscreenCanvasSupported: false,
  });
  const close = () => task.destroy().catch(() => undefined);
  let document: Awaited<typeof task.promise>;
  try {
    document = await task.promise;
  } catch (error) {
    await close();
    throw error;
  }
  const factory = document.canvasFactory as { create(width: number, height: number): { canvas: unknown; context: unknown }; destroy(pair: unknown): void };
  return {
    pageCount: document.numPages,
    close,
    async render(pageNumber, dpi, transform) {
      const page = await document.getPage(pageNumber);
      // Never more pixels than the cap, whatever the caller asked: a huge page comes out at a lower resolution.
      const points = page.getViewport({ scale: 1, rotation: 0 });
      const viewport = page.getViewport({ scale: cappedDpi(points.width, points.height, dpi) / 72, rotation: 0 });
      const width = Math.max(1, Math.round(viewport.width));
      const height = Math.max(1, Math.round(viewport.height));
      const pair = factory.create(width, height);
      const context = pair.context as CanvasRenderingContext2D;
      try {
        context.fillStyle = "#ffffff";
        context.fillRect(0, 0, width, height);
        await page.render({ canvas: pair.canvas as HTMLCanvasElement, canvasContext: context, viewport, transform }).promise;
        return { data: luminance(context.getImageData(0, 0, width, height).data), width, height };
      } finally {
        page.cleanup();
        factory.destroy(pair);
      }
    },
  };
}

/**
 * Page `pageNumber` of a PDF at `dpi`, greyscale and unrotated. Null when pdfjs cannot open or draw it:
 * the page then has no pixels (and so no code), and the caller keeps it anyway.
 */
export async function renderPageGrey(pdf: Uint8Array, pageNumber: number, dpi: number): Promise<GreyImage | null> {
  let renderable: RenderablePdf | null = null;
  try {
    renderable = await openForRendering(pdf);
    return await renderable.render(pageNumber, dpi);
  } catch {
    return null;
  } finally {
    await renderable?.close();
  }
}

/** RGBA to one byte per pixel (ITU-R BT.601 weights, as zxing computes it). */
function luminance(rgba: Uint8ClampedArray): Uint8Array {
  const grey = new Uint8Array(rgba.length >> 2);
  for (let pixel = 0, byte = 0; pixel < grey.length; pixel++, byte += 4) {
    grey[pixel] = (306 * rgba[byte]! + 601 * rgba[byte + 1]! + 117 * rgba[byte + 2]! + 512) >> 10;
  }
  return grey;
}
