import { expect, test, type Locator, type Page, type TestInfo } from "@playwright/test";
import { expectNoAxeViolations, openArea, screenshot, signIn } from "./helpers";
import { scriptPdf } from "./papers";

/**
 * Every main screen at tablet sizes: 768 × 1024 (portrait) and, for the template editor, 1024 × 768
 * (landscape). Each screen: the document never scrolls sideways, every control is a 40 px touch target,
 * axe finds nothing, the main controls are there and work, and a screenshot is kept (tablet-<screen>.png).
 * The browser reports a touch screen, as a tablet would.
 */
const PORTRAIT = { width: 768, height: 1024 };
const LANDSCAPE = { width: 1024, height: 768 };
const ADMIN_EMAIL = "admin@northfield.example";
const DEMO_TEMPLATE = "Mathematics Paper 1 (Non-calculator), June 2026 mock";
const DEMO_TIMETABLE = "Whole school, 2025–26";

test.use({ viewport: PORTRAIT, hasTouch: true });

async function expectNoHorizontalOverflow(page: Page, screen: string) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  expect(scrollWidth, `${screen}: the page scrolls sideways`).toBeLessThanOrEqual(clientWidth);
}

/** Buttons, links styled as controls, fields and checkbox labels that are shorter than 40 px. */
async function smallTouchTargets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const selector = [
      "button",
      "a.button",
      ".nav-link",
      ".back-link",
      ".table__actions a",
      "input:not([type=checkbox]):not([type=radio]):not([type=hidden]):not([type=file])",
      "select",
      "textarea",
      "label.checkbox",
      "label.segmented__option",
    ].join(", ");
    const small: string[] = [];
    for (const element of document.querySelectorAll<HTMLElement>(selector)) {
      const box = element.getBoundingClientRect();
      // Not rendered, or visually hidden for screen readers only.
      if (box.width <= 1 || box.height <= 1) continue;
      if (box.height < 39.5) {
        const name = (element.getAttribute("aria-label") ?? element.textContent ?? "").trim().replace(/\s+/g, " ").slice(0, 40);
        small.push(`${element.tagName.toLowerCase()}.${element.className} “${name}”: ${Math.round(box.height)} px`);
      }
    }
    return small;
  });
}

/** The checks every screen gets, then its screenshot. */
async function checkScreen(page: Page, testInfo: TestInfo, screen: string, fullPage = true) {
  await expectNoHorizontalOverflow(page, screen);
  expect(await smallTouchTargets(page), `${screen}: touch targets under 40 px`).toEqual([]);
  await expectNoAxeViolations(page, screen);
  await screenshot(page, testInfo, `tablet-${screen}`, fullPage);
}

/** The navigation sits above the page (a top bar), and every area of it can be reached. */
async function expectCompactNavigation(page: Page) {
  const nav = page.getByRole("navigation", { name: "Main" });
  const navBox = (await nav.boundingBox())!;
  const mainBox = (await page.getByRole("main").boundingBox())!;
  expect(navBox.y + navBox.height).toBeLessThanOrEqual(mainBox.y + 1);
  expect(mainBox.x).toBeLessThan(1);
  for (const area of ["Templates", "Batches", "Timetables", "Classes", "Settings"]) {
    await expect(nav.getByRole("link", { name: area })).toBeInViewport();
  }
  await expect(page.getByRole("button", { name: "Sign out" })).toBeInViewport();
}

/** A draft copy of the demo template owned by the teacher, so the editor can be changed freely. */
async function copyOfDemoTemplate(page: Page, title: string): Promise<string> {
  const { templates } = (await (await page.request.get("/api/exam/templates")).json()) as { templates: { id: string; title: string; status: string }[] };
  const demo = templates.find((t) => t.title === DEMO_TEMPLATE && t.status === "ready")!;
  const source = (await (await page.request.get(`/api/exam/templates/${demo.id}`)).json()) as {
    subject: string | null;
    source_file_id: string;
    page_count: number;
    questions: { id: string; parent_id: string | null; label: string; order: number; max_marks: number | null; answer_type: string | null; mark_scheme: unknown; spec_ref: string | null; is_container: boolean }[];
    response_areas: { id: string; question_id: string; page: number; kind: string; response_form: string | null; x: number; y: number; width: number; height: number }[];
  };
  const created = await page.request.post("/api/exam/templates", {
    data: { title, subject: source.subject, source_file_id: source.source_file_id, page_count: source.page_count },
  });
  expect(created.status()).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const ids = new Map(source.questions.map((q) => [q.id, crypto.randomUUID()]));
  const saved = await page.request.put(`/api/exam/templates/${id}`, {
    data: {
      questions: source.questions.map((q) => ({ ...q, id: ids.get(q.id), parent_id: q.parent_id ? ids.get(q.parent_id) : null })),
      response_areas: source.response_areas.map((a) => ({ ...a, id: crypto.randomUUID(), question_id: ids.get(a.question_id) })),
      boundaries: [],
    },
  });
  expect(saved.status()).toBe(200);
  return id;
}

/** Drags with the mouse between two page-relative points of a page's drawing surface. */
async function mouseDrag(page: Page, overlay: Locator, from: [number, number], to: [number, number]) {
  const box = await settledBox(overlay);
  await page.mouse.move(box.x + box.width * from[0], box.y + box.height * from[1]);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * to[0], box.y + box.height * to[1], { steps: 8 });
  await page.mouse.up();
}

/**
 * The element's box once it has stopped moving: after a scroll, pages above may still be laid out at
 * their rendered height, and a drag aimed from an earlier box lands elsewhere (on a busy machine, on
 * the toolbar, selecting its text).
 */
async function settledBox(element: Locator) {
  let previous = await element.boundingBox();
  await expect
    .poll(async () => {
      await element.page().waitForTimeout(100);
      const current = await element.boundingBox();
      const settled = previous !== null && current !== null && previous.x === current.x && previous.y === current.y && previous.height === current.height;
      previous = current;
      return settled;
    })
    .toBe(true);
  return previous!;
}

/** A one-finger drag through Chromium's real touch input (touch events, pointer events and scrolling). */
async function fingerDrag(page: Page, from: { x: number; y: number }, to: { x: number; y: number }) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Input.dispatchTouchEvent", { type: "touchStart", touchPoints: [{ x: from.x, y: from.y }] });
  for (let step = 1; step <= 10; step++) {
    const x = from.x + ((to.x - from.x) * step) / 10;
    const y = from.y + ((to.y - from.y) * step) / 10;
    await cdp.send("Input.dispatchTouchEvent", { type: "touchMove", touchPoints: [{ x, y }] });
  }
  await cdp.send("Input.dispatchTouchEvent", { type: "touchEnd", touchPoints: [] });
  await cdp.detach();
}

/** The top of a band of a page (page-relative, `height` tall) that no area covers. */
async function freeBand(overlay: Locator, height = 0.08): Promise<number> {
  return overlay.evaluate((surface, bandHeight) => {
    const box = surface.getBoundingClientRect();
    const taken = [...surface.querySelectorAll(".area")].map((area) => {
      const rect = area.getBoundingClientRect();
      return [(rect.top - box.top) / box.height, (rect.bottom - box.top) / box.height] as const;
    });
    for (let top = 0.04; top + bandHeight < 0.96; top += 0.01) {
      if (taken.every(([areaTop, areaBottom]) => top + bandHeight < areaTop - 0.01 || top > areaBottom + 0.01)) return top;
    }
    throw new Error("no free band on this page");
  }, height);
}

/** Scrolls the paper so that a page-relative height of a page sits near the top of the paper's frame. */
async function scrollPaperTo(page: Page, overlay: Locator, top: number) {
  const frame = await page.locator(".paper__scroll").boundingBox();
  const box = (await overlay.boundingBox())!;
  await page.locator(".paper__scroll").evaluate((element, by) => element.scrollBy(0, by), box.y + box.height * top - frame!.y - 80);
}

const questionRow = (page: Page, label: string) =>
  page.locator(".question-row").filter({ has: page.locator(".question-row__label", { hasText: new RegExp(`^${label}$`) }) });

test("the template editor in portrait: paper or questions, drawing with the mouse and by touch", async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  await signIn(page);
  await expectCompactNavigation(page);
  const templateId = await copyOfDemoTemplate(page, `Tablet portrait paper ${Date.now().toString(36)}`);
  await page.goto(`/templates/${templateId}`);
  await expect(page.locator("canvas.react-pdf__Page__canvas").first()).toBeVisible();
  const viewSwitch = page.getByRole("group", { name: "Show" });
  const paperButton = viewSwitch.getByRole("button", { name: "Paper" });
  const questionsButton = viewSwitch.getByRole("button", { name: /^Questions/ });
  await expect(paperButton).toHaveAttribute("aria-pressed", "true");

  // The paper has the whole width and fills the screen under the header, without the page scrolling.
  const scroller = page.locator(".paper__scroll");
  const paperBox = (await scroller.boundingBox())!;
  expect(paperBox.width).toBeGreaterThan(700);
  expect(paperBox.height).toBeGreaterThan(400);
  expect(paperBox.y + paperBox.height).toBeLessThanOrEqual(PORTRAIT.height);
  // The question tree waits in the other view; the title, subject and status behind "Edit details".
  await expect(page.getByRole("heading", { name: "Questions", exact: true })).toBeHidden();
  await expect(page.getByLabel("Title", { exact: true })).toBeHidden();
  await page.getByRole("button", { name: "Edit details" }).click();
  await expect(page.getByRole("button", { name: "Edit details" })).toHaveAttribute("aria-expanded", "true");
  await expect(page.getByLabel("Status")).toBeVisible();
  await page.getByRole("button", { name: "Edit details" }).click();
  await expect(page.getByLabel("Status")).toBeHidden();
  await checkScreen(page, testInfo, "editor", false);

  // A finger scrolls the paper while "Draw by touch" is off, even when the swipe starts on an area,
  // and neither draws nor moves anything.
  const drawByTouch = page.getByRole("button", { name: "Draw by touch" });
  await expect(drawByTouch).toHaveAttribute("aria-pressed", "false");
  const areas = page.locator(".area");
  const areasBefore = await areas.count();
  const firstArea = areas.first();
  await firstArea.evaluate((area) => area.scrollIntoView({ block: "center" }));
  const areaStart = (await firstArea.boundingBox())!;
  const positionInPage = async () => firstArea.evaluate((area) => [area.style.left, area.style.top].join(" "));
  const placed = await positionInPage();
  const start = { x: areaStart.x + areaStart.width / 2, y: areaStart.y + areaStart.height / 2 };
  const scrolledBefore = await scroller.evaluate((element) => element.scrollTop);
  await fingerDrag(page, start, { x: start.x, y: start.y - 200 });
  await expect.poll(() => scroller.evaluate((element) => element.scrollTop)).toBeGreaterThan(scrolledBefore + 50);
  await expect(areas).toHaveCount(areasBefore);
  expect(await positionInPage()).toBe(placed);

  // "Draw for" picks the question without leaving the paper; the mouse draws an area on page 2.
  await page.getByLabel("Draw for").selectOption({ label: "Question 2" });
  const page2 = page.locator('.page-overlay[data-page="2"]');
  let band = await freeBand(page2);
  await scrollPaperTo(page, page2, band);
  await mouseDrag(page, page2, [0.2, band + 0.01], [0.6, band + 0.07]);
  await expect(areas).toHaveCount(areasBefore + 1);
  await expect(page.getByText("Unsaved changes")).toBeVisible();
  // The new area is selected: its inspector floats over the bottom of the paper, inside the screen.
  const areaInspector = page.getByRole("region", { name: /Selected area · page 2/ });
  await expect(areaInspector).toBeInViewport({ ratio: 1 });
  await expect(areaInspector.getByLabel("Question")).toHaveValue(await page.getByLabel("Draw for").inputValue());
  await expect(areaInspector.getByRole("button", { name: "Delete area" })).toBeVisible();
  await screenshot(page, testInfo, "tablet-editor-area");
  // A tap on empty paper closes it.
  band = await freeBand(page2);
  await scrollPaperTo(page, page2, band);
  let box = await settledBox(page2);
  await page.touchscreen.tap(box.x + box.width * 0.5, box.y + box.height * (band + 0.04));
  await expect(areaInspector).toBeHidden();
  await expect(areas).toHaveCount(areasBefore + 1);

  // With "Draw by touch" on, a finger draws too.
  await drawByTouch.click();
  await expect(drawByTouch).toHaveAttribute("aria-pressed", "true");
  await page.getByLabel("Draw for").selectOption({ label: "Question 1a" });
  band = await freeBand(page2);
  await scrollPaperTo(page, page2, band);
  box = await settledBox(page2);
  await fingerDrag(
    page,
    { x: box.x + box.width * 0.3, y: box.y + box.height * (band + 0.01) },
    { x: box.x + box.width * 0.7, y: box.y + box.height * (band + 0.07) },
  );
  await expect(areas).toHaveCount(areasBefore + 2);
  await expect(page.getByRole("region", { name: /Selected area · page 2/ })).toBeVisible();

  // The Questions view lists what was drawn, at full width, with the selected question's fields.
  await questionsButton.click();
  await expect(questionsButton).toHaveAttribute("aria-pressed", "true");
  await expect(page.locator(".paper")).toBeHidden();
  await expect(questionRow(page, "2")).toContainText("2 areas");
  await expect(questionRow(page, "1a")).toContainText("2 areas");
  await questionRow(page, "2").getByRole("button", { name: /^2/ }).click();
  await expect(page.getByRole("heading", { name: "Question 2" })).toBeVisible();
  // The paper's own mark scheme reads as mark points, not as data.
  const scheme = page.getByRole("region", { name: "Mark scheme of question 2" });
  await expect(scheme).toContainText("A1: 140");
  await expect(scheme).not.toContainText("{");
  await expect(page.getByLabel("Mark scheme notes")).toHaveValue("");
  await checkScreen(page, testInfo, "editor-questions");

  // Saved like anywhere else; back on the paper the pages are still drawn at full width.
  await page.keyboard.press("Control+s");
  await expect(page.getByText("All changes saved")).toBeVisible();
  await paperButton.click();
  await expect(page.locator("canvas.react-pdf__Page__canvas").first()).toBeVisible();
  expect((await page.locator(".paper__page").first().boundingBox())!.width).toBeGreaterThan(650);
  await page.reload();
  await expect(page.locator("canvas.react-pdf__Page__canvas").first()).toBeVisible();
  await expect(areas).toHaveCount(areasBefore + 2);
});

test.describe("landscape", () => {
  test.use({ viewport: LANDSCAPE });

  test("the template editor in landscape keeps the paper and the questions side by side", async ({ page }, testInfo) => {
    test.setTimeout(60_000);
    await signIn(page);
    // A one-row top bar instead of the sidebar: brand, navigation and Sign out on one line.
    await expectCompactNavigation(page);
    const brand = (await page.locator(".sidebar__brand").boundingBox())!;
    const signOut = (await page.getByRole("button", { name: "Sign out" }).boundingBox())!;
    expect(Math.abs(brand.y + brand.height / 2 - (signOut.y + signOut.height / 2))).toBeLessThan(8);

    const templateId = await copyOfDemoTemplate(page, `Tablet landscape paper ${Date.now().toString(36)}`);
    await page.goto(`/templates/${templateId}`);
    await expect(page.locator("canvas.react-pdf__Page__canvas").first()).toBeVisible();
    await expect(page.getByRole("group", { name: "Show" })).toBeHidden();
    const paper = (await page.locator(".paper__scroll").boundingBox())!;
    const tree = page.getByRole("region", { name: "Questions" });
    await expect(tree).toBeInViewport();
    const treeBox = (await tree.boundingBox())!;
    expect(paper.width).toBeGreaterThan(560);
    expect(paper.height).toBeGreaterThan(380);
    expect(treeBox.x).toBeGreaterThan(paper.x + paper.width - 1);
    expect(paper.y + paper.height).toBeLessThanOrEqual(LANDSCAPE.height);
    await checkScreen(page, testInfo, "editor-landscape", false);

    // Select a question in the tree, draw its area with the mouse, see it listed.
    await questionRow(page, "1b").getByRole("button", { name: /^1b/ }).click();
    await expect(page.getByRole("heading", { name: "Question 1b" })).toBeVisible();
    const page3 = page.locator('.page-overlay[data-page="3"]');
    const band = await freeBand(page3);
    await scrollPaperTo(page, page3, band);
    await mouseDrag(page, page3, [0.2, band + 0.01], [0.6, band + 0.07]);
    await expect(questionRow(page, "1b")).toContainText("2 areas");
    await expect(page.getByRole("region", { name: /Selected area · page 3/ })).toBeVisible();
  });
});

test("the teacher's lists at 768 px: templates, batches and a batch page", async ({ page }, testInfo) => {
  test.setTimeout(60_000);
  await signIn(page);
  await expect(page.getByRole("table", { name: "Exam templates" })).toBeVisible();
  const newTemplate = page.getByRole("button", { name: "New template" });
  await expect(newTemplate).toBeInViewport();
  await checkScreen(page, testInfo, "templates");
  await newTemplate.click();
  const dialog = page.getByRole("dialog", { name: "New template" });
  await expect(dialog).toBeInViewport({ ratio: 1 });
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();

  // A batch of the demo template for the teacher's class, through the REST path.
  const { templates } = (await (await page.request.get("/api/exam/templates")).json()) as { templates: { id: string; title: string; status: string }[] };
  const template = templates.find((t) => t.title === DEMO_TEMPLATE && t.status === "ready")!;
  const { classes } = (await (await page.request.get("/database/timetable/classes/teaching")).json()) as { classes: { id: string; name: string }[] };
  const title = `Tablet batch ${Date.now().toString(36)}`;
  const created = await page.request.post("/api/exam/batches", {
    data: { template_id: template.id, class_id: classes.find((c) => c.name === "10A Mathematics")!.id, title },
  });
  expect(created.status()).toBe(201);
  const batchId = ((await created.json()) as { id: string }).id;
  // One scan matched in order, one that matched nobody: the queue shows both kinds of row.
  for (const [who, matching] of [["First script", "ordered"], ["Smudged script", "manual"]] as const) {
    const uploaded = await page.request.post(`/api/exam/batches/${batchId}/scans`, {
      multipart: { file: { name: `${who}.pdf`, mimeType: "application/pdf", buffer: await scriptPdf(1, who) }, matching_method: matching },
    });
    expect(uploaded.ok()).toBe(true);
  }

  await openArea(page, "Batches");
  await expect(page.getByRole("link", { name: title })).toBeVisible();
  await expect(page.getByRole("button", { name: "New batch" })).toBeInViewport();
  await checkScreen(page, testInfo, "batches");

  await page.getByRole("link", { name: title }).click();
  await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
  await expect(page.getByText("Drop PDF scans here")).toBeVisible();
  await expect(page.getByRole("heading", { name: "Queue: 21 submissions" })).toBeVisible();
  await expect(page.getByRole("button", { name: /^Assign to student/ })).toBeVisible();
  await checkScreen(page, testInfo, "batch");
});

test("the admin screens at 768 px: timetables, a week grid, classes, a class, settings", async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  await signIn(page, ADMIN_EMAIL);
  await page.goto("/timetables");
  await expect(page.getByRole("table", { name: /Timetables/ })).toBeVisible();
  await expect(page.getByRole("button", { name: "New timetable" })).toBeInViewport();
  // The name is not squeezed into a narrow column by the row's actions.
  const nameBox = (await page.getByRole("link", { name: DEMO_TIMETABLE }).boundingBox())!;
  expect(nameBox.height).toBeLessThan(50);
  await checkScreen(page, testInfo, "timetables");

  // The week grid: five days fit the screen; every lesson stays inside its cell.
  await page.getByRole("link", { name: DEMO_TIMETABLE }).click();
  await expect(page.getByRole("button", { name: /^Edit / }).first()).toBeVisible();
  const frame = page.locator(".week-grid-wrap");
  const spill = await frame.evaluate((wrap) => ({
    frame: wrap.scrollWidth - wrap.clientWidth,
    lessons: [...wrap.querySelectorAll(".lesson")].filter((lesson) => {
      const cell = lesson.closest("td")!.getBoundingClientRect();
      const box = lesson.getBoundingClientRect();
      return box.left < cell.left - 0.5 || box.right > cell.right + 0.5;
    }).length,
  }));
  expect(spill).toEqual({ frame: 0, lessons: 0 });
  await checkScreen(page, testInfo, "timetable");
  await page.getByRole("button", { name: /^Edit 10A Mathematics, Monday period 1/ }).click();
  const lessonDialog = page.getByRole("dialog", { name: "Edit lesson" });
  await expect(lessonDialog.getByRole("button", { name: "Save lesson" })).toBeInViewport();
  await lessonDialog.getByRole("button", { name: "Cancel" }).click();
  await expect(lessonDialog).toBeHidden();

  await openArea(page, "Classes");
  await expect(page.getByRole("link", { name: "10A Mathematics" })).toBeVisible();
  await checkScreen(page, testInfo, "classes");
  await page.getByRole("link", { name: "10A Mathematics" }).click();
  await expect(page.getByRole("table", { name: "Students of 10A Mathematics" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Add to class" })).toBeInViewport();
  await checkScreen(page, testInfo, "class");

  await openArea(page, "Settings");
  await expect(page.getByRole("region", { name: "Speech API keys" })).toBeVisible();
  await page.getByLabel("Token name").fill("Tablet check");
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByText("Copy your new token now")).toBeVisible();
  await expect(page.getByRole("button", { name: "Revoke Tablet check" })).toBeVisible();
  await checkScreen(page, testInfo, "settings");
});
