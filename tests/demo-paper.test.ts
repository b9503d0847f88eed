/**
 * The demo paper on its own, without a database: its data adds up, and the PDF drawn from it puts each
 * answer box inside its question's span on the page. The seeded template is tested in seed.test.ts.
 */
import { describe, expect, it } from "vitest";
import { demoPaperQuestions, demoPaperTotalMarks } from "../server/exam/demo-paper/data";
import { generateDemoPaper } from "../server/exam/demo-paper/pdf";
import { findTickBoxes } from "../server/exam/intake/imaging/find-tick-boxes";

const leaves = demoPaperQuestions.flatMap((question) => (question.leaf ? [{ label: question.label, ...question.leaf }] : (question.parts ?? [])));

describe("demo paper data", () => {
  it("gives each leaf mark points that add up to its marks, and the paper its total", () => {
    for (const leaf of leaves) expect(leaf.points.reduce((sum, point) => sum + point.marks, 0), leaf.label).toBe(leaf.marks);
    expect(demoPaperTotalMarks).toBe(leaves.reduce((sum, leaf) => sum + leaf.marks, 0));
    expect(demoPaperTotalMarks).toBe(16);
  });

  it("labels each question either as a container of parts named after it or as a leaf", () => {
    const labels = demoPaperQuestions.flatMap((question) => [question.label, ...(question.parts ?? []).map((part) => part.label)]);
    expect(new Set(labels).size).toBe(labels.length);
    for (const question of demoPaperQuestions) {
      expect(Boolean(question.leaf) !== Boolean(question.parts?.length), question.label).toBe(true);
      for (const part of question.parts ?? []) expect(part.label.startsWith(question.label), part.label).toBe(true);
    }
  });
});

describe("demo paper PDF", () => {
  it("draws one answer box per leaf, inside that leaf's span on its page", async () => {
    const paper = await generateDemoPaper();
    expect(paper.pageCount).toBe(4);
    const responses = paper.areas.filter((area) => area.kind === "response");
    expect(responses.map((area) => area.label)).toEqual(leaves.map((leaf) => leaf.label));
    for (const area of responses) {
      const span = paper.boundaries.find((boundary) => boundary.label === area.label && boundary.page === area.page);
      expect(span, area.label).toBeDefined();
      expect(area.y).toBeGreaterThanOrEqual(span!.top);
      expect(area.y + area.height).toBeLessThanOrEqual(span!.bottom);
    }
  });

  it("prints question 4's tick boxes A–D inside its answer area, where the box finder finds them", async () => {
    const paper = await generateDemoPaper();
    const area = paper.areas.find((candidate) => candidate.label === "4")!;
    expect(area).toMatchObject({ kind: "response", responseForm: "multiple_choice", page: 4 });
    expect(area.tickBoxes!.map((box) => box.label)).toEqual(["A", "B", "C", "D"]);
    for (const box of area.tickBoxes!) {
      expect(box.x).toBeGreaterThanOrEqual(area.x);
      expect(box.y).toBeGreaterThanOrEqual(area.y);
      expect(box.x + box.width).toBeLessThanOrEqual(area.x + area.width);
      expect(box.y + box.height).toBeLessThanOrEqual(area.y + area.height);
    }
    // The editor's "find the boxes" on the printed page: the same boxes, within half a millimetre.
    const found = await findTickBoxes(paper.bytes, area.page, area);
    expect(found.map((box) => `${box.label}:${box.shape}`)).toEqual(["A:square", "B:square", "C:square", "D:square"]);
    found.forEach((box, index) => {
      const drawn = area.tickBoxes![index]!;
      for (const key of ["x", "width"] as const) expect(Math.abs(box[key] - drawn[key]) * 210).toBeLessThan(0.5);
      for (const key of ["y", "height"] as const) expect(Math.abs(box[key] - drawn[key]) * 297).toBeLessThan(0.5);
    });
    // The right answer in its scheme is one of its boxes.
    const question = demoPaperQuestions.find((candidate) => candidate.label === "4")!;
    expect(question.leaf!.choices!.correct).toEqual(["C"]);
  });
});
