import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { PDFDict, PDFDocument, PDFName, PDFRawStream } from "pdf-lib";
import { beforeAll, describe, expect, it } from "vitest";
import { prepareZXingModule, readBarcodes } from "zxing-wasm/reader";
import { generateDemoPaper } from "../server/exam/demo-paper/pdf";
import { workerImaging } from "../server/exam/intake/imaging";
import type { PageReading } from "../server/exam/intake/page-reading";
import { encodePageCode, newBatchCode } from "../server/exam/intake/print-code";
import { stampScripts } from "../server/exam/intake/stamp";
import { timeoutFor } from "./support/busy-machine";
import { type PileTruth, type ScanOptions, scanPile } from "./support/scanned-pile";

/**
 * Reading scanned piles: every page is made of pixels by tests/support/scanned-pile.ts (a copier's
 * JPEGs), never the vector PDF, except where a vector page is the point.
 */

/** CPU-seconds: making one pile page (pdfjs, noise, JPEG) and reading one (with retries on a hard page). */
const SCAN_PAGE = 0.4;
const READ_PAGE = 0.8;
const pileTimeout = (pages: number) => timeoutFor(pages * (SCAN_PAGE + READ_PAGE));

const PAGES_PER_SCRIPT = 4;
const batchCode = newBatchCode();
let printed: Uint8Array;

beforeAll(async () => {
  const paper = (await generateDemoPaper()).bytes;
  const scripts = [1, 2, 3].map((scriptNumber) => ({ scriptNumber, heading: scriptNumber === 3 ? "Spare copy" : `Student ${scriptNumber}` }));
  printed = (await stampScripts(paper, batchCode, scripts, [])).pdf;
}, timeoutFor(3));

async function readAll(pdf: Uint8Array, options?: Parameters<ReturnType<typeof workerImaging>["readPile"]>[1]): Promise<PageReading[]> {
  const readings: PageReading[] = [];
  for await (const reading of workerImaging().readPile(pdf, options)) readings.push(reading);
  return readings;
}

/** What a reading of each pile page must say. */
function expected(truth: PileTruth[], code: string = batchCode) {
  return truth.map((page, index) => ({
    pilePage: index + 1,
    pileSize: truth.length,
    code: page.kind === "printed" && !page.torn ? encodePageCode({ batchCode: code, scriptNumber: page.scriptNumber, page: page.page }) : null,
    rotation: page.kind === "printed" && !page.torn ? page.rotation : 0,
  }));
}

let zxingReady: Promise<unknown> | null = null;

/** One try of zxing-cpp (tryHarder) on a pile page's whole JPEG: the read without Markbook's retries. */
async function plainWholePageRead(pilePdf: Uint8Array, index: number): Promise<string | null> {
  zxingReady ??= prepareZXingModule({ overrides: { wasmBinary: new Uint8Array(readFileSync(createRequire(import.meta.url).resolve("zxing-wasm/reader/zxing_reader.wasm"))).buffer }, fireImmediately: true });
  await zxingReady;
  const page = (await PDFDocument.load(pilePdf)).getPage(index);
  const images = page.node.Resources()!.lookup(PDFName.of("XObject"), PDFDict);
  const image = images.lookup(images.keys()[0]!);
  if (!(image instanceof PDFRawStream)) throw new Error("a pile page is one JPEG");
  const [found] = await readBarcodes(image.getContents(), { formats: ["QRCode"], tryHarder: true });
  return found?.text ?? null;
}

const summary = (readings: PageReading[]) => readings.map(({ pilePage, pileSize, code, rotation }) => ({ pilePage, pileSize, code, rotation }));

async function pileOf(options: Omit<ScanOptions, "pagesPerScript">) {
  return scanPile(printed, { pagesPerScript: PAGES_PER_SCRIPT, ...options });
}

describe("reading a scanned pile", () => {
  for (const dpi of [150, 200, 300]) {
    it(
      `reads every coded page with its exact code and rotation at ${dpi} dpi, upside-down pages too`,
      async () => {
        const pile = await pileOf({ seed: dpi, dpi, upsideDown: 3 });
        expect(pile.truth.filter((page) => page.kind === "printed" && page.rotation === 180)).toHaveLength(3);
        const readings = await readAll(pile.pdf);
        expect(summary(readings)).toEqual(expected(pile.truth));
        // The one-page PDFs are the scanned pages themselves: one JPEG each, a few hundred kB at most.
        for (const reading of readings) expect(reading.onePagePdf.byteLength).toBeGreaterThan(20_000);
      },
      pileTimeout(12),
    );
  }

  it(
    "gives the turn that shows a page upright for pages fed a quarter turned either way (90° and 270°)",
    async () => {
      const pile = await pileOf({ seed: 90, dpi: { min: 150, max: 300 }, upsideDown: 2, quarterTurned: 6 });
      const rotations = new Set(pile.truth.map((page) => (page.kind === "printed" ? page.rotation : -1)));
      expect([...rotations].sort()).toEqual([0, 180, 270, 90].sort());
      expect(summary(await readAll(pile.pdf))).toEqual(expected(pile.truth));
    },
    pileTimeout(12),
  );

  it(
    "reads a harsh, dusty copier's pile in full (low contrast, noise, blur, specks) where a plain whole-page read misses codes",
    async () => {
      const pile = await pileOf({ seed: 5, dpi: 150, harsh: true, dust: 0.15, upsideDown: 2, quarterTurned: 2 });
      // zxing-cpp alone, on each whole page as scanned, misses some codes: this pile needs the retries.
      const plain = await Promise.all(pile.truth.map(async (_, index) => plainWholePageRead(pile.pdf, index)));
      expect(plain.filter((text) => text === null).length).toBeGreaterThan(0);
      expect(summary(await readAll(pile.pdf))).toEqual(expected(pile.truth));
    },
    pileTimeout(24),
  );

  it(
    "reads no code on a page whose code is torn off, a blank sheet, and another batch's page with that batch's code",
    async () => {
      const otherBatch = newBatchCode();
      const other = (await stampScripts((await generateDemoPaper()).bytes, otherBatch, [{ scriptNumber: 7, heading: "Elsewhere" }], [])).pdf;
      const pile = await pileOf({ seed: 11, tornCodes: [2, 6], blankPages: 1, foreign: { printed: other, pages: [3] }, duplicate: false, missing: false });
      const readings = summary(await readAll(pile.pdf));
      const at = (match: (page: PileTruth) => boolean) => readings[pile.truth.findIndex(match)]!;
      expect(at((page) => page.kind === "printed" && page.printedPage === 2)).toMatchObject({ code: null, rotation: 0 });
      expect(at((page) => page.kind === "printed" && page.printedPage === 6)).toMatchObject({ code: null, rotation: 0 });
      expect(at((page) => page.kind === "blank")).toMatchObject({ code: null, rotation: 0 });
      const foreign = pile.truth.find((page) => page.kind === "foreign")!;
      expect(at((page) => page.kind === "foreign").code).toBe(encodePageCode({ batchCode: otherBatch, scriptNumber: 7, page: 3 }));
      expect(at((page) => page.kind === "foreign").rotation).toBe(foreign.kind === "foreign" ? foreign.rotation : -1);
      // Every other page of the pile is read as usual.
      const others = expected(pile.truth).filter((_, index) => pile.truth[index]!.kind === "printed");
      expect(readings.filter((_, index) => pile.truth[index]!.kind === "printed")).toEqual(others);
    },
    pileTimeout(14),
  );

  it(
    "reads a vector page (a PDF printed, not scanned) by rendering it",
    async () => {
      const readings = await readAll(printed.slice(), { fromPage: 9 });
      expect(summary(readings)).toEqual(
        [1, 2, 3, 4].map((page, index) => ({ pilePage: 9 + index, pileSize: 12, code: encodePageCode({ batchCode, scriptNumber: 3, page }), rotation: 0 })),
      );
    },
    timeoutFor(4 * READ_PAGE),
  );

  it(
    "resumes from a given pile page, reading only the pages from there on",
    async () => {
      const pile = await pileOf({ seed: 3 });
      const readings = await readAll(pile.pdf, { fromPage: 9 });
      expect(summary(readings)).toEqual(expected(pile.truth).slice(8));
    },
    pileTimeout(12),
  );
});
