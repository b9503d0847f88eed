import { describe, expect, it } from "vitest";
import { AppError } from "../server/errors";
import { workerImaging } from "../server/exam/intake/imaging";
import { hostileFiles } from "./support/hostile-files";
import { findTickBoxes } from "../server/exam/intake/imaging/find-tick-boxes";
import { tickBoxPaper, tickPaperArea } from "./support/tick-box-paper";

/**
 * The box finder on a generated paper: every printed square and round box inside the area, none of
 * the letters, the heading's round capitals, the ruled answer box or its lines, nor the box outside
 * the area; in reading order, where they are printed (within half a millimetre).
 */
describe("finding the tick boxes printed in an area", () => {
  const TOLERANCE_MM = 0.5;

  it("finds exactly the boxes inside the area, labelled in reading order, with their shape and place", async () => {
    const paper = await tickBoxPaper();
    const found = await findTickBoxes(paper.pdf, tickPaperArea.page, tickPaperArea);
    expect(found.map((box) => `${box.label}:${box.shape}`)).toEqual(paper.boxes.map((box) => `${box.label}:${box.shape}`));
    found.forEach((box, index) => {
      const truth = paper.boxes[index]!;
      expect(Math.abs(box.x * paper.pageWidthMm - truth.x)).toBeLessThan(TOLERANCE_MM);
      expect(Math.abs(box.y * paper.pageHeightMm - truth.y)).toBeLessThan(TOLERANCE_MM);
      expect(Math.abs(box.width * paper.pageWidthMm - truth.size)).toBeLessThan(TOLERANCE_MM);
      expect(Math.abs(box.height * paper.pageHeightMm - truth.size)).toBeLessThan(TOLERANCE_MM);
      // Inside the area, as the canvas save requires.
      expect(box.x).toBeGreaterThanOrEqual(tickPaperArea.x);
      expect(box.y + box.height).toBeLessThanOrEqual(tickPaperArea.y + tickPaperArea.height);
    });
  });

  it("finds only the boxes of a smaller area, labelled from A again, and none where there are none", async () => {
    const paper = await tickBoxPaper();
    // The row of circles alone.
    const circles = await findTickBoxes(paper.pdf, 2, { x: 25 / 210, y: 86 / 297, width: 160 / 210, height: 10 / 297 });
    expect(circles.map((box) => `${box.label}:${box.shape}`)).toEqual(["A:round", "B:round", "C:round", "D:round"]);
    // The ruled answer box: lines and a large rectangle, no tick box.
    expect(await findTickBoxes(paper.pdf, 2, { x: 22 / 210, y: 112 / 297, width: 166 / 210, height: 36 / 297 })).toEqual([]);
    // The cover page has only its title.
    expect(await findTickBoxes(paper.pdf, 1, { x: 0, y: 0, width: 1, height: 1 })).toEqual([]);
  });

  it("refuses a page the paper does not have, and a file that is no PDF, with a sentence", async () => {
    const paper = await tickBoxPaper();
    await expect(findTickBoxes(paper.pdf, 3, tickPaperArea)).rejects.toMatchObject({ code: "invalid", message: "Page 3 is beyond the paper's 2 pages" });
    await expect(findTickBoxes(new TextEncoder().encode("not a pdf"), 1, tickPaperArea)).rejects.toMatchObject({ code: "invalid", message: /not a PDF/ });
  });

  it("in the imaging worker, every hostile paper of the corpus is refused with a sentence or searched within the pixel cap", async () => {
    const imaging = workerImaging();
    const paper = await tickBoxPaper();
    // The worker answers as the function does.
    expect((await imaging.findTickBoxes(paper.pdf, tickPaperArea.page, tickPaperArea)).map((box) => box.label)).toEqual(paper.boxes.map((box) => box.label));
    for (const file of await hostileFiles()) {
      try {
        const boxes = await imaging.findTickBoxes(file.bytes, 1, { x: 0, y: 0, width: 1, height: 1 });
        expect(boxes.length, file.name).toBeLessThanOrEqual(26);
      } catch (error) {
        expect(error, `${file.name}: ${String(error)}`).toBeInstanceOf(AppError);
        expect((error as AppError).code, file.name).toBe("invalid");
      }
    }
  }, 120_000);
});
