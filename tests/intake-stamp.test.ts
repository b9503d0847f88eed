import { PDFDocument } from "pdf-lib";
import { beforeAll, describe, expect, it } from "vitest";
import { generateDemoPaper } from "../server/db/demo-paper-pdf";
import { newBatchCode } from "../server/intake/print-code";
import { type PageRect, stampScripts } from "../server/intake/stamp";

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
