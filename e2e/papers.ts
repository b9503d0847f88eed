import crypto from "node:crypto";
import { type Page, expect } from "@playwright/test";
import { PDFDocument, StandardFonts, rgb } from "pdf-lib";

/** A two-page question paper, generated here so the tests own its bytes. */
export async function twoPagePaper(): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  const bold = await document.embedFont(StandardFonts.HelveticaBold);
  const questions = [
    ["1 (a) Work out 3/4 + 1/8.", "1 (b) Simplify 6x + 2y - 4x + y."],
    ["2 Solve 5x - 7 = 3x + 9.", "Show your working."],
  ];
  questions.forEach((lines, index) => {
    const page = document.addPage([595, 842]);
    page.drawText(`E2E Mock Paper, page ${index + 1}`, { x: 56, y: 780, size: 16, font: bold });
    lines.forEach((line, row) => {
      const top = 700 - row * 330;
      page.drawText(line, { x: 56, y: top, size: 12, font });
      page.drawRectangle({ x: 56, y: top - 250, width: 483, height: 220, borderColor: rgb(0.6, 0.6, 0.6), borderWidth: 1 });
    });
  });
  return Buffer.from(await document.save());
}

/** A scanned script: as many pages as the template, with a little handwriting-like text. */
export async function scriptPdf(pages: number, who: string): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let index = 0; index < pages; index++) {
    const page = document.addPage([595, 842]);
    page.drawText(`${who}, page ${index + 1}`, { x: 56, y: 790, size: 14, font });
    page.drawText("x = 7", { x: 300, y: 500 - index * 40, size: 20, font, color: rgb(0.1, 0.2, 0.6) });
  }
  return Buffer.from(await document.save());
}

/** Drags a rectangle on a page overlay of the template editor between two page-relative points. */
export async function drawArea(page: Page, pageNumber: number, from: [number, number], to: [number, number]) {
  const overlay = page.locator(`.page-overlay[data-page="${pageNumber}"]`);
  await overlay.scrollIntoViewIfNeeded();
  // A page taller than the paper's pane: the band drawn over is brought to the pane's middle (scrolling
  // the page into view alone may leave the band above or below what shows).
  await overlay.evaluate((element, band) => {
    let pane = element.parentElement;
    while (pane && !(pane.scrollHeight > pane.clientHeight && getComputedStyle(pane).overflowY !== "visible")) pane = pane.parentElement;
    if (!pane) return;
    const rect = element.getBoundingClientRect();
    const paneRect = pane.getBoundingClientRect();
    pane.scrollTop += rect.top + rect.height * band - (paneRect.top + paneRect.height / 2);
  }, (from[1] + to[1]) / 2);
  const box = (await overlay.boundingBox())!;
  await page.mouse.move(box.x + box.width * from[0], box.y + box.height * from[1]);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * to[0], box.y + box.height * to[1], { steps: 6 });
  await page.mouse.up();
}

/** The question tree's button of the question labelled `label`. */
export const questionButton = (page: Page, label: string) =>
  page.locator(".question-row__select").filter({ has: page.locator(".question-row__label", { hasText: new RegExp(`^${label}$`) }) });

/**
 * A template of the teacher's (`page` is signed in): questions 1a (3 marks) and 1b (2) on page 1, 2 (4)
 * on page 2, each with one response area; no paper file (scans are uploaded as `scriptPdf`s).
 */
export async function threeQuestionTemplate(page: Page, title: string) {
  const ids = { q1a: crypto.randomUUID(), q1b: crypto.randomUUID(), q2: crypto.randomUUID() };
  const template = (await (await page.request.post("/api/exam/templates", { data: { title, page_count: 2 } })).json()) as { id: string };
  const saved = await page.request.put(`/api/exam/templates/${template.id}`, {
    data: {
      questions: [
        { id: ids.q1a, parent_id: null, label: "1a", order: 0, max_marks: 3, answer_type: null, mark_scheme: null, spec_ref: null, is_container: false },
        { id: ids.q1b, parent_id: null, label: "1b", order: 1, max_marks: 2, answer_type: null, mark_scheme: null, spec_ref: null, is_container: false },
        { id: ids.q2, parent_id: null, label: "2", order: 2, max_marks: 4, answer_type: null, mark_scheme: null, spec_ref: null, is_container: false },
      ],
      response_areas: [
        { id: crypto.randomUUID(), question_id: ids.q1a, page: 1, kind: "response", response_form: null, x: 0.08, y: 0.12, width: 0.84, height: 0.3 },
        { id: crypto.randomUUID(), question_id: ids.q1b, page: 1, kind: "response", response_form: null, x: 0.08, y: 0.5, width: 0.84, height: 0.3 },
        { id: crypto.randomUUID(), question_id: ids.q2, page: 2, kind: "response", response_form: null, x: 0.08, y: 0.12, width: 0.84, height: 0.5 },
      ],
      boundaries: [],
    },
  });
  expect(saved.ok(), await saved.text()).toBe(true);
  return { template, ids };
}
