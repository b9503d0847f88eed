import fc from "fast-check";
import { PDFDocument } from "pdf-lib";
import { describe, expect, it } from "vitest";
import { AppError } from "../server/errors";
import { workerImaging } from "../server/exam/intake/imaging";
import { MAX_READ_PAGES, proposeTemplate } from "../server/exam/template-reading/read-paper";
import { proposalToCanvas } from "../server/exam/template-reading/to-canvas";
import { validateCanvas, validateNameBox } from "../server/exam/canvas";
import { type AnswerLayout, type MarksStyle, type PaperLayout, examPaper, iou, scannedPaper } from "./support/exam-papers";
import { demoPaperQuestions, demoPaperTotalMarks, generateDemoPaper } from "../server/exam/demo-paper";
import { hostileFiles } from "./support/hostile-files";
import { tickPaper } from "./support/tick-paper";
import { AREA_IOU, scoreProposal } from "./support/template-score";

/**
 * The template reader (issue 37, item 1) on generated exam papers (tests/support/exam-papers.ts): each
 * layout read back equal to the paper's truth (labels as printed, parents, marks, answer areas within
 * IoU 0.9, tick boxes, the name box, the stated total); every total that disagrees said in a sentence;
 * a scanned paper's boxes and lines found; hostile files refused with a sentence, in the worker too.
 */

const SENTENCE = /^[A-Z].{10,}[^\s]$/s;

async function readBack(options: Parameters<typeof examPaper>[0]) {
  const paper = await examPaper(options);
  const proposal = await proposeTemplate(paper.bytes);
  return { paper, proposal, score: scoreProposal(paper.truth, proposal) };
}

describe("reading a template from a paper's own content", () => {
  const layouts: AnswerLayout[] = ["boxed", "ruled", "open"];
  for (const layout of [...layouts, "mixed"] as PaperLayout[]) {
    for (const columns of [1, 2] as const) {
      it(`reads a ${layout} paper in ${columns === 1 ? "one column" : "two columns"} back equal to its truth`, async () => {
        const { paper, proposal, score } = await readBack({ seed: 100 + columns * 10 + layouts.indexOf(layout as AnswerLayout), layout, columns, cover: true, faults: false });
        expect(score.labels.wrong).toEqual([]);
        expect(score.extra).toEqual([]);
        expect(score.marks.wrong).toEqual([]);
        expect(score.areas.wrong).toEqual([]);
        expect(score.nameBox).toBe(true);
        expect(proposal.warnings).toEqual([]);
        expect(proposal.stated_total).toBe(paper.truth.total);
        expect(proposal.marks_total).toBe(paper.truth.total);
        expect(proposal.page_count).toBe(paper.truth.pageCount);
        // The same questions in the same order, with their parents and (for a question with parts) the total of its parts.
        expect(proposal.questions.map((q) => [q.label, q.parent_label, q.max_marks, q.page])).toEqual(paper.truth.questions.map((q) => [q.label, q.parent_label, q.max_marks, q.page]));
        // Tick-box questions: kind, and each box where it is printed.
        for (const truth of paper.truth.questions.filter((q) => q.kind === "ticks")) {
          const found = proposal.questions.find((q) => q.label === truth.label)!;
          expect(found.kind).toBe("ticks");
          expect(found.tick_boxes!.map((box) => box.label)).toEqual(["A", "B", "C", "D"]);
          found.tick_boxes!.forEach((box, index) => expect(iou(box, truth.tick_boxes![index]!)).toBeGreaterThan(AREA_IOU));
        }
        // Sure where the paper printed a box, lines or tick boxes and the totals agree; open space is to be checked.
        for (const found of proposal.questions.filter((q) => q.page !== null)) expect(found.confidence).toBe(found.area_from === "space" ? "check" : "sure");
      });
    }
  }

  for (const marksStyle of ["brackets-marks", "parentheses", "plain-marks", "brackets"] as MarksStyle[]) {
    it(`reads marks printed as ${marksStyle}, with "Total for Question" lines`, async () => {
      const { score, proposal } = await readBack({ seed: 200 + marksStyle.length, marksStyle, questionTotals: true, faults: false, cover: false });
      expect(score.marks.wrong).toEqual([]);
      expect(score.marks.of).toBeGreaterThan(4);
      expect(proposal.stated_total).toBeNull();
      expect(proposal.name_box).toBeNull();
      expect(proposal.warnings).toEqual([]);
    });
  }

  it("says when the cover's total is not the sum of the marks, in the issue's words", async () => {
    const { paper, proposal, score } = await readBack({ seed: 301, fault: "cover-total", faults: true, cover: true });
    const says = paper.truth.faults[0]!;
    expect(says.kind).toBe("cover-total");
    expect(proposal.warnings).toContain(`the marks add up to ${paper.truth.total}, the cover says ${(says as { says: number }).says}`);
    expect(score.faults.unsaid).toEqual([]);
    // Every part is left to check: which of them is wrong, the paper does not say.
    expect(proposal.questions.filter((q) => q.page !== null).every((q) => q.confidence === "check")).toBe(true);
  });

  it("says when a question's total disagrees with its parts, and when a part's marks are not printed", async () => {
    const total = await readBack({ seed: 302, fault: "question-total", faults: true, questionTotals: true, layout: "boxed", questions: 8 });
    const fault = total.paper.truth.faults[0]!;
    expect(fault.kind).toBe("question-total");
    expect(total.proposal.warnings.some((warning) => /^Question \d+: the parts add up to \d+, the paper says \d+$/.test(warning))).toBe(true);
    expect(total.score.faults.unsaid).toEqual([]);

    const missing = await readBack({ seed: 303, fault: "marks-missing", faults: true, cover: true, questionTotals: false });
    const label = (missing.paper.truth.faults[0] as { label: string }).label;
    expect(missing.proposal.warnings).toContain(`Question ${label}: no marks found`);
    const part = missing.proposal.questions.find((q) => q.label === label)!;
    expect(part.max_marks).toBeNull();
    expect(part.confidence).toBe("check");
    // The cover's total cannot be reached without it: said too.
    expect(missing.proposal.warnings.some((warning) => warning.includes("one part without marks"))).toBe(true);
  });

  it("never proposes a wrong total in silence, whatever the layout (fast-check over generated papers)", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          seed: fc.integer({ min: 1, max: 1_000_000 }),
          layout: fc.constantFrom<PaperLayout>("boxed", "ruled", "open", "mixed"),
          columns: fc.constantFrom<1 | 2>(1, 2),
          marksStyle: fc.constantFrom<MarksStyle>("brackets-marks", "parentheses", "plain-marks", "brackets"),
          cover: fc.boolean(),
          questionTotals: fc.boolean(),
          faults: fc.boolean(),
        }),
        async (options) => {
          const { paper, proposal, score } = await readBack(options);
          // Every fault printed is said, and a proposed total that is not the paper's is never left unsaid.
          expect(score.faults.unsaid).toEqual([]);
          expect(score.silentWrongTotal).toBe(false);
          // A part proposed as sure has the marks the paper gives it.
          for (const found of proposal.questions.filter((q) => q.page !== null && q.confidence === "sure")) {
            expect(found.max_marks, found.label).toBe(paper.truth.questions.find((q) => q.label === found.label)?.max_marks);
          }
          // With no fault on the paper, nothing to say.
          if (paper.truth.faults.length === 0) expect(proposal.warnings).toEqual([]);
        },
      ),
      { numRuns: 40 },
    );
  }, 120_000);

  it("gives a proposal the canvas's shape, which the canvas's own checks accept (every layout, with faults)", async () => {
    for (const [index, layout] of (["boxed", "ruled", "open", "mixed"] as PaperLayout[]).entries()) {
      const paper = await examPaper({ seed: 600 + index, layout, columns: index === 3 ? 2 : 1, cover: true, faults: index % 2 === 0 });
      const proposal = await proposeTemplate(paper.bytes);
      const { canvas, name_box } = proposalToCanvas(proposal);
      expect(() => validateCanvas(canvas, proposal.page_count)).not.toThrow();
      expect(() => validateNameBox(name_box!, proposal.page_count)).not.toThrow();
      // Labels and parents carried over; each part one area; tick-box questions Multiple choice with their boxes.
      expect(canvas.questions.map((q) => q.label)).toEqual(proposal.questions.map((q) => q.label));
      for (const question of canvas.questions) {
        const parent = canvas.questions.find((q) => q.id === question.parent_id)?.label ?? null;
        expect(parent).toBe(proposal.questions.find((q) => q.label === question.label)!.parent_label);
      }
      expect(canvas.response_areas).toHaveLength(proposal.questions.filter((q) => q.area).length);
      for (const truth of paper.truth.questions.filter((q) => q.kind === "ticks")) {
        const question = canvas.questions.find((q) => q.label === truth.label)!;
        expect(question.answer_type).toBe("multiple_choice");
        expect(canvas.response_areas.find((area) => area.question_id === question.id)!.tick_boxes).toHaveLength(4);
      }
    }
  });

  it("reads the demo paper (server/exam/demo-paper) to the template its own drawing records", async () => {
    const paper = await generateDemoPaper();
    const proposal = await proposeTemplate(paper.bytes);
    expect(proposal.warnings).toEqual([]);
    expect(proposal.marks_total).toBe(demoPaperTotalMarks);
    // The demo's labels are "1a"; printed, and proposed, as "1(a)".
    const label = (demo: string) => demo.replace(/^(\d+)([a-z])$/, "$1($2)");
    const leaves = demoPaperQuestions.flatMap((question) => (question.parts ? question.parts.map((part) => ({ label: part.label, marks: part.marks })) : [{ label: question.label, marks: question.leaf!.marks }]));
    expect(proposal.questions.filter((q) => q.page !== null).map((q) => [q.label, q.max_marks])).toEqual(leaves.map((leaf) => [label(leaf.label), leaf.marks]));
    for (const area of paper.areas.filter((a) => a.kind === "response")) {
      const found = proposal.questions.find((q) => q.label === label(area.label))!;
      expect(found.page).toBe(area.page);
      expect(iou(found.area!, area)).toBeGreaterThan(AREA_IOU);
      expect(found.confidence).toBe("sure");
    }
    // Its name box is the Surname box of the cover's three (the demo's own is drawn round all three and their labels).
    expect(proposal.name_box?.page).toBe(1);
  });

  it("reads another generator's paper: numbers and text in one piece, round and square tick boxes, a question it cannot place said", async () => {
    // tests/support/tick-paper.ts prints "1. Which of these is a metal?" as one piece of text, and questions 9 and 18 beside 8 and 17.
    const paper = await tickPaper({ pages: 2 });
    const proposal = await proposeTemplate(paper.bytes);
    const byLabel = new Map(proposal.questions.map((q) => [q.label, q]));
    expect(proposal.questions.map((q) => q.label)).toEqual(["1", "2", "3", "4", "5", "6", "7", "8", "10", "11", "12", "13", "14", "15", "16", "17"]);
    expect(proposal.warnings).toContain("Question 9: not found between 8 and 10; draw it if the paper has it");
    // No marks are printed on it: each part says so, none is sure.
    expect(proposal.warnings.filter((warning) => warning.endsWith(": no marks found"))).toHaveLength(16);
    expect(proposal.questions.every((q) => q.confidence === "check")).toBe(true);
    paper.pages.forEach((page, index) => {
      const first = index * 9;
      page.tickAreas.forEach((area, q) => {
        const found = byLabel.get(`${first + q + 1}`)!;
        expect(found.kind).toBe("ticks");
        expect(found.tick_boxes!.map((box) => `${box.label}:${box.shape}`)).toEqual(area.boxes.map((box) => `${box.label}:${box.shape}`));
        found.tick_boxes!.forEach((box, b) => expect(iou(box, area.boxes[b]!)).toBeGreaterThan(AREA_IOU));
      });
      // The ruled box, and the one-line box (not the digit box beside it, question 9's).
      expect(iou(byLabel.get(`${first + 7}`)!.area!, page.writtenAreas[0]!)).toBeGreaterThan(AREA_IOU);
      expect(iou(byLabel.get(`${first + 8}`)!.area!, page.writtenAreas[1]!)).toBeGreaterThan(AREA_IOU);
    });
  });

  it("finds a scanned paper's boxes, ruled lines and tick boxes from its image, and leaves its text to the teacher", async () => {
    for (const layout of ["boxed", "ruled"] as const) {
      const printed = await examPaper({ seed: 400 + layout.length, layout, columns: 1, cover: true, questions: 5, faults: false });
      const scan = await scannedPaper(printed);
      const proposal = await proposeTemplate(scan.bytes);
      const score = scoreProposal(scan.truth, proposal, { scanned: true });
      expect(score.areas.of).toBeGreaterThan(4);
      expect(score.areas.wrong).toEqual([]);
      expect(proposal.scanned_pages).toEqual(Array.from({ length: printed.truth.pageCount }, (_, index) => index + 1));
      expect(proposal.warnings.at(-1)).toMatch(/no text to read \(a scan\)/);
      expect(proposal.questions.every((q) => q.confidence === "check" && q.max_marks === null)).toBe(true);
      expect(proposal.stated_total).toBeNull();
    }
  }, 60_000);

  it("refuses every hostile file of the corpus, and a paper of too many pages, with a sentence", async () => {
    for (const file of await hostileFiles()) {
      const refused = await proposeTemplate(file.bytes).then(
        () => null,
        (error: unknown) => error,
      );
      expect(refused, file.name).toBeInstanceOf(AppError);
      expect((refused as AppError).code, file.name).toBe("invalid");
      expect((refused as AppError).message, file.name).toMatch(SENTENCE);
    }
    const long = await PDFDocument.create();
    for (let page = 0; page <= MAX_READ_PAGES; page++) long.addPage([595, 842]);
    await expect(proposeTemplate(await long.save())).rejects.toMatchObject({ code: "invalid", message: `This PDF has more than ${MAX_READ_PAGES} pages, more than an exam paper may have: upload the paper alone.` });
  });

  it("in the imaging worker: the same proposal, and hostile files refused with the same sentence", async () => {
    const imaging = workerImaging();
    const { bytes } = await examPaper({ seed: 501, layout: "mixed", faults: false });
    expect(await imaging.proposeTemplate(bytes)).toEqual(await proposeTemplate(bytes));
    const [bomb] = (await hostileFiles()).filter((file) => file.name === "content-stream-bomb.pdf");
    const direct = await proposeTemplate(bomb!.bytes).then(
      () => null,
      (error: unknown) => error as AppError,
    );
    expect(direct?.code).toBe("invalid");
    await expect(imaging.proposeTemplate(bomb!.bytes)).rejects.toMatchObject({ code: "invalid", message: direct!.message });
  }, 60_000);
});
