/**
 * Placing a page's areas on the scan (server/exam/ticks/align.ts, placeAreas): after the top and bottom
 * areas, each area is looked for near the shift the areas placed already predict, and over the whole
 * search only when its best lies at that window's edge. Whatever the first guess's error (a code's
 * corners place the far side of a page within a few millimetres: shift, turn and scale), every tick-box
 * area lands where the whole search puts it and every area decides alike: the near search is a saving,
 * not a change.
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { renderPageGrey } from "../server/exam/intake/imaging/pdfjs";
import { stampScripts } from "../server/exam/intake/stamp";
import { type ScanPage, type TemplatePage, WORK_DPI, placeAreas, scanPage, templatePage } from "../server/exam/ticks/align";
import { type Affine, compose, rotationAbout, translation } from "../server/exam/ticks/image";
import { readTickArea, boundsOf } from "../server/exam/ticks/read-ticks";
import { readWrittenArea, writtenTiles } from "../server/exam/ticks/blank-areas";
import type { AreaRect } from "../server/exam/ticks/reading";
import { timeoutFor } from "./support/busy-machine";
import { batchCodeOf, penAnswers } from "./support/pen-answers";
import { type TickPaper, tickPaper } from "./support/tick-paper";

/** The resolution the answered pages are drawn at: a scan at twice the reading's. */
const SCAN_DPI = 2 * WORK_DPI;

let paper: TickPaper;
const pages: { template: TemplatePage; scan: ScanPage; areas: AreaRect[]; layout: TickPaper["pages"][number] }[] = [];

beforeAll(async () => {
  paper = await tickPaper({ pages: 2 });
  const batchCode = batchCodeOf(61);
  const { pdf: printed } = await stampScripts(paper.bytes, batchCode, [{ scriptNumber: 1, heading: "Student 1" }], paper.keepClear);
  const answered = await penAnswers(printed, paper, 61);
  for (const layout of paper.pages) {
    const template = templatePage((await renderPageGrey(paper.bytes, layout.page, WORK_DPI))!);
    const scan = scanPage((await renderPageGrey(answered.pdf, layout.page, SCAN_DPI))!, SCAN_DPI);
    const areas = [...layout.tickAreas.map((area) => boundsOf(area.boxes)), ...layout.writtenAreas.flatMap((area) => writtenTiles(template, area))];
    pages.push({ template, scan, areas, layout });
  }
}, timeoutFor(60));

/** The page bowed as a copier's glass leaves it: each row moved sideways by up to `bow` pixels, most at the middle (what no turn or scale of the whole page takes up). */
function bowed(scan: ScanPage, bow: number): ScanPage {
  if (bow === 0) return scan;
  const { width, height, data } = scan.image;
  const out = new Uint8Array(width * height).fill(255);
  for (let y = 0; y < height; y++) {
    const by = Math.round(bow * Math.sin((Math.PI * y) / height));
    for (let x = Math.max(0, by); x < Math.min(width, width + by); x++) out[y * width + x] = data[y * width + x - by]!;
  }
  return scanPage({ data: out, width, height }, scan.dpi);
}

/** Template pixels → the drawn page's pixels, off by a first guess's error: turned about the page's middle, scaled, shifted (template pixels). */
function firstGuess(template: TemplatePage, error: { degrees: number; scale: number; dx: number; dy: number }): Affine {
  const centre = { x: template.image.width / 2, y: template.image.height / 2 };
  const off = compose(translation(error.dx, error.dy), rotationAbout(centre, (error.degrees * Math.PI) / 180, error.scale));
  return compose({ a: SCAN_DPI / WORK_DPI, b: 0, c: 0, d: 0, e: SCAN_DPI / WORK_DPI, f: 0 }, off);
}

describe("placing areas near the shift the others predict", () => {
  it(
    "places tick-box areas where the whole search does, whatever the first guess's error, and every area decides alike",
    () => {
      fc.assert(
        fc.property(
          fc.integer({ min: 0, max: 1 }),
          fc.record({ degrees: fc.double({ min: -0.5, max: 0.5, noNaN: true }), scale: fc.double({ min: 0.993, max: 1.007, noNaN: true }), dx: fc.integer({ min: -8, max: 8 }), dy: fc.integer({ min: -8, max: 8 }) }),
          // The bow in the scan's pixels (two to a template pixel): up to 2.5 mm, beyond the near search's window, within the whole search's.
          fc.integer({ min: -20, max: 20 }),
          (index, error, bow) => {
            const { template, areas, layout } = pages[index]!;
            const scan = bowed(pages[index]!.scan, bow);
            const first = firstGuess(template, error);
            const near = placeAreas(template, scan, first, areas);
            const whole = placeAreas(template, scan, first, areas, { near: false });
            const shifts = (placements: typeof near) => placements.map((placement) => (placement.view ? [placement.view.dx, placement.view.dy] : null));
            // A tick-box area's print (its boxes' outlines) has one best place: the same there, bowed or not.
            const ticks = layout.tickAreas.length;
            expect(shifts(near).slice(0, ticks)).toEqual(shifts(whole).slice(0, ticks));
            // Found alike (an area the whole search cannot reach is not found either way), and most of them found.
            expect(near.map((placement) => placement.view !== null)).toEqual(whole.map((placement) => placement.view !== null));
            expect(near.filter((placement) => placement.view).length).toBeGreaterThanOrEqual(areas.length / 2);
            // A piece of a ruled area may lie as well a few pixels along its lines (the whole search may take
            // the far end of its window): what it decides is the same.
            const decisions = (placements: typeof near) => {
              let next = ticks;
              return [
                ...layout.tickAreas.map((area, at) => {
                  const reading = readTickArea(template, area, placements[at]!);
                  return [reading.answer, reading.boxes.map((box) => box.state)];
                }),
                ...layout.writtenAreas.map((area) => readWrittenArea(template, area, writtenTiles(template, area).map((rect) => ({ rect, placement: placements[next++]! }))).blank),
              ];
            };
            expect(decisions(near)).toEqual(decisions(whole));
          },
        ),
        { numRuns: 24, seed: 36 },
      );
    },
    timeoutFor(120),
  );
});
