import fc from "fast-check";
import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { type ScanTask, readScanTask, readScannedPages } from "../server/exam/template-reading/scan-threads";
import { runs } from "../server/exam/template-reading/scanned-page";
import { examPaper, scannedPaper } from "./support/exam-papers";

/**
 * The template reader's speed work (issue 37, "a 12-page paper is read in ≤ 3 s on two cores"): a
 * scanned paper's pages read on page threads give the areas read on the calling thread, page for page;
 * a short read waiting behind a long one is served in turn, not after it; the runs of ink down the
 * columns, now read row by row, are the runs along the rows of the image turned on its side.
 */

async function onePagePdfs(bytes: Uint8Array): Promise<Uint8Array[]> {
  const source = await PDFDocument.load(bytes);
  const pages: Uint8Array[] = [];
  for (let index = 0; index < source.getPageCount(); index++) {
    const single = await PDFDocument.create({ updateMetadata: false });
    single.addPage((await single.copyPages(source, [index]))[0]);
    pages.push(await single.save());
  }
  return pages;
}

describe("reading a scanned paper's pages side by side", () => {
  it("finds on the page threads, page for page, the areas found on the calling thread", async () => {
    const printed = await examPaper({ seed: 77, layout: "mixed", columns: 1, cover: true, questions: 8, faults: false });
    const pages = await onePagePdfs((await scannedPaper(printed)).bytes);
    expect(pages.length).toBeGreaterThan(2);
    const inline = await Promise.all(pages.map((pdf) => readScanTask({ kind: "pdf", pdf })));
    const threaded = await Promise.all(readScannedPages(pages.map((pdf) => ({ kind: "pdf", pdf }))));
    expect(inline.every((areas) => areas !== null && areas.length > 0)).toBe(true);
    expect(threaded).toEqual(inline);
  }, 60_000);

  it("answers null for a page that is not one scanned JPEG (the caller renders it), and reads pixels it is sent", async () => {
    const vector = await examPaper({ seed: 78, layout: "boxed", columns: 1, cover: false, questions: 2, faults: false });
    const [pdf] = await onePagePdfs(vector.bytes);
    const blank: ScanTask = { kind: "pixels", image: { data: new Uint8Array(400 * 500).fill(235), width: 400, height: 500 }, pxPerMm: 2 };
    const [notJpeg, pixels] = readScannedPages([{ kind: "pdf", pdf: pdf! }, blank]);
    expect(await notJpeg).toBeNull();
    expect(await pixels).toEqual([]);
  }, 30_000);

  it("serves a short read waiting behind a long one in turn: its page is done before the long read's third (first come first served: after its last but one)", async () => {
    const printed = await examPaper({ seed: 79, layout: "ruled", columns: 1, cover: true, questions: 14, faults: false });
    const pages = await onePagePdfs((await scannedPaper(printed)).bytes);
    expect(pages.length).toBeGreaterThanOrEqual(5);
    const done: string[] = [];
    const long = readScannedPages(pages.map((pdf) => ({ kind: "pdf", pdf }))).map((answer, index) => answer.then(() => done.push(`long ${index + 1}`)));
    const short = readScannedPages([{ kind: "pixels", image: { data: new Uint8Array(200 * 280).fill(240), width: 200, height: 280 }, pxPerMm: 1 }]).map((answer) => answer.then(() => done.push("short")));
    await Promise.all([...long, ...short]);
    // Two threads take the long read's pages 1 and 2; the short read's page is next, then the long read's 3.
    expect(done.indexOf("short")).toBeLessThan(done.indexOf("long 3"));
    expect(done).toHaveLength(pages.length + 1);
  }, 60_000);
});

describe("runs of ink down the columns", () => {
  it("are the runs along the rows of the image turned on its side (fast-check over small images)", () => {
    const image = fc.integer({ min: 1, max: 40 }).chain((W) =>
      fc.integer({ min: 1, max: 40 }).chain((H) => fc.tuple(fc.constant(W), fc.constant(H), fc.uint8Array({ minLength: W * H, maxLength: W * H, max: 1 }))),
    );
    fc.assert(
      fc.property(image, fc.integer({ min: 0, max: 4 }), fc.integer({ min: 1, max: 12 }), ([W, H, ink], gap, min) => {
        const turned = new Uint8Array(W * H);
        for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) turned[x * H + y] = ink[y * W + x]!;
        expect(runs(ink, W, H, gap, min, true)).toEqual(runs(turned, H, W, gap, min, false));
      }),
      { numRuns: 300 },
    );
  });
});
