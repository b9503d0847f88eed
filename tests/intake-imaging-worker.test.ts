import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { degrees, PDFDict, PDFDocument, PDFName, type PDFPage, PDFRawStream } from "pdf-lib";
import sharp from "sharp";
import { beforeAll, describe, expect, it } from "vitest";
import { prepareZXingModule, readBarcodes } from "zxing-wasm/reader";
import { generateDemoPaper } from "../server/exam/demo-paper/pdf";
import { AppError } from "../server/errors";
import { imagingWorkerProcess, workerImaging } from "../server/exam/intake/imaging";
import { CROP_MARGIN } from "../server/exam/intake/imaging/pile";
import type { PageReading } from "../server/exam/intake/page-reading";
import { encodePageCode, newBatchCode } from "../server/exam/intake/print-code";
import { timeoutFor } from "./support/busy-machine";
import { type ScannedPile, scanPile } from "./support/scanned-pile";

/** The imaging worker's other services and its life: bad files, assembling, crops, crashes. */

const imaging = workerImaging();
const batchCode = newBatchCode();
let printed: Uint8Array;
let pile: ScannedPile;
let readings: PageReading[];

beforeAll(async () => {
  const paper = (await generateDemoPaper()).bytes;
  printed = (await imaging.stamp(paper, batchCode, [{ scriptNumber: 1, heading: "Ada Lovelace" }, { scriptNumber: 2, heading: "Spare copy" }], [])).pdf;
  pile = await scanPile(printed, { seed: 21, pagesPerScript: 4, upsideDown: 2, quarterTurned: 2, duplicate: false, missing: false });
  readings = [];
  for await (const reading of imaging.readPile(pile.pdf.slice())) readings.push(reading);
}, timeoutFor(12));

async function readAll(pdf: Uint8Array) {
  const all: PageReading[] = [];
  for await (const reading of imaging.readPile(pdf)) all.push(reading);
  return all;
}

/** The one image of a scanned page. */
function scannedImage(page: PDFPage): PDFRawStream {
  const images = page.node.Resources()!.lookup(PDFName.of("XObject"), PDFDict);
  const image = images.lookup(images.keys()[0]!);
  if (!(image instanceof PDFRawStream)) throw new Error("the page is not one scanned image");
  return image;
}

describe("files the imaging cannot open", () => {
  it("refuses a file that is not a PDF, in words for the teacher", async () => {
    const error = await readAll(new TextEncoder().encode("Name,Mark\nAda,7\n")).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(AppError);
    expect(error).toMatchObject({ code: "invalid", message: "The file is not a PDF that can be read: it is not a PDF file. Scan the pile again, or save it as PDF from the copier." });
  });

  it("refuses a PDF cut short (its trailer lost) as damaged", async () => {
    const error = await readAll(pile.pdf.slice(0, Math.floor(pile.pdf.byteLength * 0.6))).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "invalid", message: expect.stringContaining("it is damaged or cut short") as unknown });
  });

  it("reads nothing from a PDF with no pages", async () => {
    const empty = await (await PDFDocument.create()).save({ addDefaultPage: false });
    expect(await readAll(empty)).toEqual([]);
  });

  it("keeps a page whose image cannot be decoded, without a code, and reads the next page", async () => {
    const document = await PDFDocument.create();
    const broken = document.addPage([595, 842]);
    const image = document.context.stream(new Uint8Array([0xff, 0xd8, 0xff, 0x00, 1, 2, 3]), { Type: "XObject", Subtype: "Image", Width: 595, Height: 842, ColorSpace: "DeviceGray", BitsPerComponent: 8, Filter: "DCTDecode" });
    broken.node.setXObject(PDFName.of("Im0"), document.context.register(image));
    broken.node.set(PDFName.of("Contents"), document.context.register(document.context.stream("q 595 0 0 842 0 0 cm /Im0 Do Q")));
    const [good] = await document.copyPages(await PDFDocument.load(printed), [0]);
    document.addPage(good);
    const result = await readAll(await document.save());
    expect(result.map(({ pilePage, code }) => ({ pilePage, code }))).toEqual([
      { pilePage: 1, code: null },
      { pilePage: 2, code: encodePageCode({ batchCode, scriptNumber: 1, page: 1 }) },
    ]);
  }, timeoutFor(3));
});

describe("a scanner's own /Rotate", () => {
  it("does not change the reading: the rotation is the /Rotate that shows the page's content upright", async () => {
    const upsideDown = readings.find((reading) => reading.code && reading.rotation === 180)!;
    const document = await PDFDocument.load(upsideDown.onePagePdf);
    document.getPage(0).setRotation(degrees(90));
    const [reading] = await readAll(await document.save());
    expect(reading).toMatchObject({ code: upsideDown.code, rotation: 180 });
    // The same for a page that is rendered (a vector page): its content is upright, whatever its /Rotate.
    const vector = await PDFDocument.load(printed);
    vector.getPage(0).setRotation(degrees(270));
    const [rendered] = await readAll(await vector.save());
    expect(rendered).toMatchObject({ code: encodePageCode({ batchCode, scriptNumber: 1, page: 1 }), rotation: 0 });
  }, timeoutFor(4));
});

describe("assembling a script", () => {
  it("joins the pages in order, each turned upright by its /Rotate", async () => {
    // One page the scanner took upright, one a quarter turned each way and one upside down.
    const pages = [0, 90, 180, 270].map((rotation) => readings.find((reading) => reading.code && reading.rotation === rotation)!);
    expect(pages.every(Boolean)).toBe(true);
    const script = await PDFDocument.load(await imaging.assembleScript(pages.map(({ onePagePdf, rotation }) => ({ onePagePdf, rotation }))));
    expect(script.getPageCount()).toBe(4);
    expect(script.getPages().map((page) => page.getRotation().angle)).toEqual([0, 90, 180, 270]);
    // In order: each page is the scanned page given (its image, byte for byte).
    const jpegSizes = (pdf: PDFDocument) => pdf.getPages().map((page) => scannedImage(page).getContents().byteLength);
    const given = await Promise.all(pages.map(async (page) => jpegSizes(await PDFDocument.load(page.onePagePdf))[0]));
    expect(new Set(given).size).toBe(4);
    expect(jpegSizes(script)).toEqual(given);
    // The inputs are copied to the worker, not handed over: the caller's pages are still there.
    expect(pages.every((page) => page.onePagePdf.byteLength > 0)).toBe(true);
  });
});

describe("the name box crop", () => {
  beforeAll(async () => {
    await prepareZXingModule({ overrides: { wasmBinary: new Uint8Array(readFileSync(createRequire(import.meta.url).resolve("zxing-wasm/reader/zxing_reader.wasm"))).buffer }, fireImmediately: true });
  });

  it("is an upright JPEG of the rectangle (plus a small margin), whichever way the page was scanned", async () => {
    // The stamp's corner of the upright page (top right): its code must read upright in the crop.
    const rect = { x: 0.62, y: 0, width: 0.38, height: 0.16 };
    const turned = [0, 90, 180, 270].map((rotation) => readings.find((reading) => reading.code && reading.rotation === rotation));
    expect(turned.every(Boolean)).toBe(true);
    for (const reading of turned) {
      const jpeg = await imaging.nameBoxCrop(reading!.onePagePdf, reading!.rotation, rect);
      expect(jpeg).not.toBeNull();
      expect([...jpeg!.subarray(0, 2)]).toEqual([0xff, 0xd8]);
      const { width, height } = await sharp(jpeg!).metadata();
      const [pageWidth, pageHeight] = [210, 297];
      const expectedAspect = ((Math.min(1, rect.x + rect.width + CROP_MARGIN) - (rect.x - CROP_MARGIN)) * pageWidth) / ((rect.height + CROP_MARGIN) * pageHeight);
      expect(width / height).toBeCloseTo(expectedAspect, 1);
      const [code] = await readBarcodes(jpeg!, { formats: ["QRCode"] });
      expect(code?.text).toBe(reading!.code);
      expect(Math.abs(code!.rotation)).toBeLessThan(5);
    }
  }, timeoutFor(4));
});

/** Ends the worker process as a crash would, and waits until it has gone. */
async function stopWorker() {
  const worker = imagingWorkerProcess()!;
  const exited = new Promise((resolve) => worker.once("exit", resolve));
  worker.kill("SIGKILL");
  await exited;
}

describe("the worker's life", () => {
  it("fails the request in flight with a clear error when the worker dies, and serves the next request", async () => {
    const reading = imaging.readPile(pile.pdf.slice())[Symbol.asyncIterator]();
    expect((await reading.next()).value).toMatchObject({ pilePage: 1 });
    const next = reading.next();
    await stopWorker();
    await expect(next).rejects.toMatchObject({ code: "unavailable", message: "The scan reader stopped unexpectedly while working on this file; try again" });
    const again = await readAll(pile.pdf.slice());
    expect(again.map(({ code, rotation }) => ({ code, rotation }))).toEqual(readings.map(({ code, rotation }) => ({ code, rotation })));
  }, timeoutFor(12));

  it("fails a pile whose worker died while serving another request, rather than reading from a new worker that never opened it", async () => {
    const reading = imaging.readPile(pile.pdf.slice())[Symbol.asyncIterator]();
    expect((await reading.next()).value).toMatchObject({ pilePage: 1 });
    const crop = imaging.nameBoxCrop(readings[0]!.onePagePdf, 0, { x: 0, y: 0, width: 1, height: 1 });
    await stopWorker();
    await expect(crop).rejects.toMatchObject({ code: "unavailable" });
    await expect(reading.next()).rejects.toMatchObject({ code: "unavailable", message: "The scan reader stopped unexpectedly while working on this file; try again" });
    // The next request starts a new worker.
    expect(await imaging.nameBoxCrop(readings[0]!.onePagePdf, 0, { x: 0, y: 0, width: 0.5, height: 0.5 })).not.toBeNull();
  }, timeoutFor(6));

  it("stops reading when the caller aborts, and the worker goes on serving", async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    const reading = (async () => {
      for await (const page of imaging.readPile(pile.pdf.slice(), { signal: controller.signal })) {
        seen.push(page.pilePage);
        if (page.pilePage === 2) controller.abort();
      }
    })();
    await expect(reading).rejects.toMatchObject({ name: "AbortError" });
    expect(seen).toEqual([1, 2]);
    const crop = await imaging.nameBoxCrop(readings[0]!.onePagePdf, readings[0]!.rotation, { x: 0, y: 0, width: 0.5, height: 0.5 });
    expect(crop).not.toBeNull();
  }, timeoutFor(4));
});
