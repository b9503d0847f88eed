import { expect, test, type Page, type TestInfo } from "@playwright/test";
import { PDFDocument, StandardFonts, rgb } from "pdf-lib";
import { expectNoAxeViolations, screenshot, signIn } from "./helpers";

/**
 * The marking screen on an iPad, portrait (768 × 1024) and landscape (1024 × 768), with a touch screen
 * and a keyboard (as an iPad with a keyboard case): the scan and the marking panel both on screen, the
 * page never scrolling sideways, the mark input, Confirm and the navigation within reach, 40 px touch
 * targets, a long mark scheme scrolling inside the panel rather than pushing the mark away, the shortcuts
 * working, and a mark typed + Enter saved before the screen moves on.
 */
const SIZES = [
  { name: "portrait", viewport: { width: 768, height: 1024 } },
  { name: "landscape", viewport: { width: 1024, height: 768 } },
] as const;
const DEMO_TEMPLATE = "Mathematics Paper 1 (Non-calculator), June 2026 mock";

/** A square on every page whose colour says the page was painted (blue channel 200, red 30, green 160). */
const MARKER = { x: 40, top: 40, size: 40, colour: [30, 160, 200] as const };

async function scriptPdf(pages: number, who: string): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.Helvetica);
  for (let index = 0; index < pages; index++) {
    const page = document.addPage([595, 842]);
    const [r, g, b] = MARKER.colour;
    page.drawRectangle({ x: MARKER.x, y: 842 - MARKER.top - MARKER.size, width: MARKER.size, height: MARKER.size, color: rgb(r / 255, g / 255, b / 255) });
    page.drawText(`${who}, page ${index + 1}`, { x: 100, y: 790, size: 14, font });
    page.drawText("x = 7", { x: 300, y: 500 - index * 40, size: 20, font, color: rgb(0.1, 0.2, 0.6) });
  }
  return Buffer.from(await document.save());
}

type TemplateDetail = {
  subject: string | null;
  source_file_id: string;
  page_count: number;
  questions: { id: string; parent_id: string | null; label: string; order: number; max_marks: number | null; is_container: boolean; mark_scheme: unknown }[];
  response_areas: { id: string; question_id: string }[];
};

/** Mark points enough to overflow the panel on any tablet: the mark scheme must scroll, not push the mark away. */
const LONG_SCHEME = {
  type: "points",
  answer: "x = 5 and y = -2",
  points: Array.from({ length: 14 }, (_, index) => ({ id: `P${index + 1}`, text: `Point ${index + 1}: a correct step of the method, shown in working`, marks: 1 })),
};

/**
 * A ready copy of the demo template whose second question has a long mark scheme, a batch of it for the
 * teacher's class and two scanned scripts (uploaded in order), all through the REST API.
 */
async function batchWithScripts(page: Page): Promise<{ batchId: string; first: { id: string; student_name: string }; second: { id: string; student_name: string } }> {
  const { templates } = (await (await page.request.get("/api/exam/templates")).json()) as { templates: { id: string; title: string; status: string }[] };
  const demo = templates.find((t) => t.title === DEMO_TEMPLATE && t.status === "ready")!;
  expect(demo).toBeTruthy();
  const source = (await (await page.request.get(`/api/exam/templates/${demo.id}`)).json()) as TemplateDetail;
  const created = await page.request.post("/api/exam/templates", {
    data: { title: `Tablet marking ${Date.now().toString(36)}`, subject: source.subject, source_file_id: source.source_file_id, page_count: source.page_count },
  });
  expect(created.status()).toBe(201);
  const templateId = ((await created.json()) as { id: string }).id;
  const ids = new Map(source.questions.map((q) => [q.id, crypto.randomUUID()]));
  const leaves = source.questions.filter((q) => !q.is_container).sort((a, b) => a.order - b.order || a.label.localeCompare(b.label));
  const saved = await page.request.put(`/api/exam/templates/${templateId}`, {
    data: {
      status: "ready",
      questions: source.questions.map((q) => ({ ...q, id: ids.get(q.id), parent_id: q.parent_id ? ids.get(q.parent_id) : null, mark_scheme: q.id === leaves[1]!.id ? LONG_SCHEME : q.mark_scheme })),
      response_areas: source.response_areas.map((a) => ({ ...a, id: crypto.randomUUID(), question_id: ids.get(a.question_id) })),
      boundaries: [],
    },
  });
  expect(saved.status()).toBe(200);

  const { classes } = (await (await page.request.get("/database/timetable/classes/teaching")).json()) as { classes: { id: string }[] };
  const batch = await page.request.post("/api/exam/batches", { data: { template_id: templateId, class_id: classes[0]!.id, title: "Tablet marking" } });
  expect(batch.status()).toBe(201);
  const batchId = ((await batch.json()) as { id: string }).id;
  const scripts: { id: string; student_name: string }[] = [];
  for (const who of ["First script", "Second script"]) {
    const uploaded = await page.request.post(`/api/exam/batches/${batchId}/scans`, {
      multipart: { file: { name: `${who}.pdf`, mimeType: "application/pdf", buffer: await scriptPdf(source.page_count, who) }, matching_method: "ordered" },
    });
    expect(uploaded.ok()).toBe(true);
    scripts.push((await uploaded.json()) as { id: string; student_name: string });
  }
  return { batchId, first: scripts[0]!, second: scripts[1]! };
}

async function expectNoHorizontalOverflow(page: Page) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
  expect(scrollWidth, "the page scrolls sideways").toBeLessThanOrEqual(clientWidth);
}

/** Controls of the marking screen shorter or narrower than 40 px. */
async function smallTouchTargets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const small: string[] = [];
    const controls = document.querySelectorAll<HTMLElement>(".marking button, .marking a, .marking input:not([type=radio]), .marking textarea, .marking label.segmented__option");
    for (const element of controls) {
      const box = element.getBoundingClientRect();
      if (box.width <= 1 || box.height <= 1) continue; // not rendered, or for screen readers only
      if (box.height < 39.5 || box.width < 39.5) {
        const name = (element.getAttribute("aria-label") ?? element.textContent ?? element.id).trim().replace(/\s+/g, " ").slice(0, 40);
        small.push(`${element.tagName.toLowerCase()} “${name}”: ${Math.round(box.width)} × ${Math.round(box.height)} px`);
      }
    }
    return small;
  });
}

/** The page canvas that holds the current question's answer area: painted (the marker's colour) and on screen. */
async function expectCurrentPagePainted(page: Page) {
  const currentPage = page.locator(".scan-viewer__page").filter({ has: page.locator("[data-current-area]") });
  const canvas = currentPage.locator("canvas.react-pdf__Page__canvas");
  await expect(canvas).toBeVisible();
  await expect(page.locator("[data-current-area]")).toBeInViewport({ ratio: 0.5 });
  await expect
    .poll(() =>
      canvas.evaluate((element: HTMLCanvasElement, marker) => {
        if (element.width === 0) return "blank";
        const x = Math.round(((marker.x + marker.size / 2) / 595) * element.width);
        const y = Math.round(((marker.top + marker.size / 2) / 842) * element.height);
        return Array.from(element.getContext("2d")!.getImageData(x, y, 1, 1).data.slice(0, 3)).join(",");
      }, MARKER),
    )
    .toMatch(new RegExp(`^${MARKER.colour.map((c) => `(${c - 2}|${c - 1}|${c}|${c + 1}|${c + 2})`).join(",")}$`));
  // A usable share of the screen shows the scan, not a sliver.
  const scanBox = (await page.getByRole("region", { name: /^Scan of [^,]+$/ }).boundingBox())!;
  const viewport = page.viewportSize()!;
  expect(scanBox.width * scanBox.height, "the scan's share of the screen").toBeGreaterThan(0.3 * viewport.width * viewport.height);
}

for (const size of SIZES) {
  test.describe(`the marking screen on a tablet, ${size.name}`, () => {
    test.use({ viewport: size.viewport, hasTouch: true });

    test(`scan and marking panel both usable at ${size.viewport.width} × ${size.viewport.height}; a mark and Enter save and move on`, async ({ page }, testInfo: TestInfo) => {
      test.setTimeout(90_000);
      await signIn(page);
      const { batchId, first, second } = await batchWithScripts(page);
      await page.goto(`/batches/${batchId}/mark?submission=${first.id}`);
      await expect(page.getByRole("heading", { level: 1, name: first.student_name })).toBeVisible();

      await expectCurrentPagePainted(page);
      await expectNoHorizontalOverflow(page);

      // Everything needed to mark is on screen at once, without scrolling the page.
      const markInput = page.getByRole("textbox", { name: /^Mark out of/ });
      const confirm = page.getByRole("button", { name: "Confirm and next" });
      const questions = page.getByRole("navigation", { name: "Questions" }).getByRole("button");
      await expect(markInput).toBeFocused();
      for (const control of [markInput, confirm, questions.first(), questions.last(), page.getByRole("button", { name: /Next script/ }), page.getByRole("button", { name: /Previous script/ })]) {
        await expect(control).toBeInViewport();
      }
      expect(await page.evaluate(() => window.scrollY), "the page scrolled to show the marking screen").toBe(0);
      expect(await smallTouchTargets(page), "touch targets under 40 px").toEqual([]);
      await expectNoAxeViolations(page);
      await screenshot(page, testInfo, `tablet-marking-${size.name}`);

      // A tap on a question, then the keyboard (an iPad with a keyboard): j/k, the shortcut sheet.
      await questions.nth(1).tap();
      await expect(questions.nth(1)).toHaveAttribute("aria-current", "step");
      await expectCurrentPagePainted(page);

      // Its long mark scheme scrolls inside the panel: the mark, Confirm and the scan stay on screen, and
      // the last mark point can be scrolled to.
      const question = page.getByRole("region", { name: /^Question/ });
      const lastPoint = question.getByText(/^Point 14:/);
      expect(await question.evaluate((element) => element.scrollHeight > element.clientHeight + 20), "the mark scheme scrolls on its own").toBe(true);
      await expect(lastPoint).not.toBeInViewport();
      for (const control of [markInput, confirm, questions.last()]) await expect(control).toBeInViewport();
      expect(await page.evaluate(() => window.scrollY)).toBe(0);
      await expectNoAxeViolations(page);
      await screenshot(page, testInfo, `tablet-marking-${size.name}-long-scheme`);
      await question.evaluate((element) => element.scrollTo({ top: element.scrollHeight }));
      await expect(lastPoint).toBeInViewport();
      await expect(markInput).toBeInViewport();
      await page.keyboard.press("k");
      await expect(questions.nth(0)).toHaveAttribute("aria-current", "step");
      await page.keyboard.press("j");
      await expect(questions.nth(1)).toHaveAttribute("aria-current", "step");
      await page.keyboard.press("k");
      await page.keyboard.press("?");
      const sheet = page.getByRole("dialog", { name: "Keyboard shortcuts" });
      await expect(sheet).toBeVisible();
      await expect(sheet.getByRole("button", { name: "Close" })).toBeInViewport();
      await page.keyboard.press("Escape");
      await expect(sheet).toBeHidden();

      // A mark typed and Enter: saved, and the next question is up with the mark input focused again.
      const firstQuestionId = await page.evaluate(async (id) => {
        const response = await fetch(`/api/exam/batches/${id}/results`);
        return ((await response.json()) as { questions: { id: string }[] }).questions[0]!.id;
      }, batchId);
      await expect(markInput).toBeFocused();
      await page.keyboard.type("1");
      await page.keyboard.press("Enter");
      await expect(questions.nth(1)).toHaveAttribute("aria-current", "step");
      await expect(markInput).toBeFocused();
      await expect(markInput).toHaveValue("");
      await expect(questions.nth(0)).toHaveAttribute("aria-label", /1 marks, confirmed/);
      await expect
        .poll(async () => {
          const results = (await (await page.request.get(`/api/exam/batches/${batchId}/results`)).json()) as { results: { submission_id: string; marks: Record<string, number | null> }[] };
          return results.results.find((r) => r.submission_id === first.id)?.marks[firstQuestionId] ?? null;
        })
        .toBe(1);

      // Touch navigation to the next script keeps the layout: painted scan, nothing sideways.
      await page.getByRole("button", { name: /Next script/ }).tap();
      await expect(page.getByRole("heading", { level: 1, name: second.student_name })).toBeVisible();
      await expectCurrentPagePainted(page);
      await expect(markInput).toBeFocused();
      await expectNoHorizontalOverflow(page);
    });
  });
}
