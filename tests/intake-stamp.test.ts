import { PDFDocument } from "pdf-lib";
import { beforeAll, describe, expect, it } from "vitest";
import { generateDemoPaper } from "../server/exam/demo-paper/pdf";
import { newBatchCode } from "../server/exam/intake/print-code";
import { type PageRect, stampScripts } from "../server/exam/intake/stamp";
import { pdfTextPages } from "./support/pdf-text";

// Where the codes are read back from pixels: tests/intake-imaging*.test.ts.
describe("stamping printed scripts", () => {
  let paper: Uint8Array;
  beforeAll(async () => {
    paper = (await generateDemoPaper()).bytes;
  });

  it("prints every page of the paper once per script, spare copies included", async () => {
    const scripts = [
      { scriptNumber: 1, heading: "Ada Lovelace" },
      { scriptNumber: 2, heading: "Zoë Dvořák 李" },
      { scriptNumber: 3, heading: "Spare copy" },
    ];
    const { pdf } = await stampScripts(paper, newBatchCode(), scripts, []);
    const paperPages = (await PDFDocument.load(paper)).getPageCount();
    const printed = await PDFDocument.load(pdf);
    expect(printed.getPageCount()).toBe(paperPages * scripts.length);
    expect(printed.getPage(0).getSize()).toEqual((await PDFDocument.load(paper)).getPage(0).getSize());
  });

  it("keeps the code off the places students write: the next corner when the top right is taken", async () => {
    const topRight: PageRect = { page: 1, x: 0.6, y: 0, width: 0.4, height: 0.2 };
    const { placements } = await stampScripts(paper, newBatchCode(), [{ scriptNumber: 1, heading: "A" }], [topRight]);
    expect(placements[0]).toEqual({ page: 1, corner: "bottom-right", overlaps: [] });
    expect(placements[1]).toEqual({ page: 2, corner: "top-right", overlaps: [] });
  });

  it("reports the areas it covers when no corner is clear, choosing the corner that covers least", async () => {
    const band = (y: number, height: number): PageRect => ({ page: 1, x: 0, y, width: 1, height });
    const { placements } = await stampScripts(paper, newBatchCode(), [{ scriptNumber: 1, heading: "A" }], [band(0, 0.2), band(0.95, 0.05)]);
    expect(placements[0]!.corner).toMatch(/^bottom-/);
    expect(placements[0]!.overlaps).toEqual([band(0.95, 0.05)]);
  });
});

/** Names of a school's students in Latin with its extensions (Polish, Turkish, Vietnamese), Greek and Cyrillic. */
const NAMES_BEYOND_LATIN_1 = ["Łukasz Wójcik", "Şükrü Yılmaz", "Nguyễn Thị Ánh", "Αλέξανδρος Παπαδόπουλος", "Дмитрий Иванов"];

describe("names on the stamp in any script the school's names are written in", () => {
  let paper: Uint8Array;
  beforeAll(async () => {
    paper = (await generateDemoPaper()).bytes;
  });

  it("prints each name exactly as written, read back from the PDF's text layer", async () => {
    const scripts = NAMES_BEYOND_LATIN_1.map((heading, index) => ({ scriptNumber: index + 1, heading }));
    const { pdf } = await stampScripts(paper, newBatchCode(), scripts, []);
    const pages = await pdfTextPages(pdf);
    const pagesPerScript = pages.length / scripts.length;
    for (const [index, name] of NAMES_BEYOND_LATIN_1.entries()) {
      for (let page = 0; page < pagesPerScript; page++) {
        const lines = pages[index * pagesPerScript + page]!.split("\n");
        expect(lines).toContain(name);
      }
    }
  });

  it("embeds only the glyphs it draws: a class set stays about the size of the paper", async () => {
    const scripts = Array.from({ length: 30 }, (_, index) => ({ scriptNumber: index + 1, heading: NAMES_BEYOND_LATIN_1[index % NAMES_BEYOND_LATIN_1.length]! }));
    const { pdf } = await stampScripts(paper, newBatchCode(), scripts, []);
    // The two TrueType files are 1.4 MB together; a class set measured 195 kB (175 kB in Helvetica).
    expect(pdf.byteLength).toBeLessThan(300_000);
  });

  it("writes a character no font here has (Chinese) as ?, never as an empty box", async () => {
    const { pdf } = await stampScripts(paper, newBatchCode(), [{ scriptNumber: 1, heading: "Li 李 Dvořák" }], []);
    expect((await pdfTextPages(pdf))[0]!.split("\n")).toContain("Li ? Dvořák");
  });
});
