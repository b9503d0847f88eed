import { expect, test, type Page } from "@playwright/test";
import { PDFDocument } from "pdf-lib";
import { expectNoAxeViolations, screenshot, signIn } from "./helpers";
import { drawArea } from "./papers";

const DEMO_TEMPLATE = "Mathematics Paper 1 (Non-calculator), June 2026 mock";
const DEMO_PAPER_PAGES = 4;
const CLASS_SIZE = 20;

/** A batch of `templateId` for the teacher's 10A Mathematics, through REST (the session cookie rides along). */
async function createBatch(page: Page, templateId: string, title: string): Promise<string> {
  const { classes } = (await (await page.request.get("/database/timetable/classes/teaching")).json()) as { classes: { id: string; name: string }[] };
  const classId = classes.find((c) => c.name === "10A Mathematics")!.id;
  const created = await page.request.post("/api/exam/batches", { data: { template_id: templateId, class_id: classId, title } });
  expect(created.status()).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

async function demoTemplateId(page: Page): Promise<string> {
  const { templates } = (await (await page.request.get("/api/exam/templates")).json()) as { templates: { id: string; title: string; status: string }[] };
  return templates.find((t) => t.title === DEMO_TEMPLATE && t.status === "ready")!.id;
}

test("a teacher prints a batch's scripts with 2 spare copies and gets one PDF of every page", async ({ page }, testInfo) => {
  await signIn(page);
  const title = `Print ${Date.now().toString(36)}`;
  const batchId = await createBatch(page, await demoTemplateId(page), title);
  await page.goto(`/batches/${batchId}`);
  await page.getByRole("button", { name: "Print scripts" }).click();

  const dialog = page.getByRole("dialog", { name: "Print scripts" });
  await expect(dialog).toBeVisible();
  const spares = dialog.getByLabel("Spare copies");
  await expect(spares).toHaveValue("2");
  await expect(spares).toBeFocused();
  await expect(dialog.locator("dd").nth(0)).toHaveText(String(CLASS_SIZE));
  await expect(dialog.locator("dd").nth(1)).toHaveText(String(DEMO_PAPER_PAGES));
  await expect(dialog.getByText(`The PDF will have ${CLASS_SIZE + 2} scripts, ${(CLASS_SIZE + 2) * DEMO_PAPER_PAGES} pages.`)).toBeVisible();
  await screenshot(page, testInfo, "print-scripts-dialog");
  await expectNoAxeViolations(page);

  // A value out of range is refused in the dialog, naming the field.
  await spares.fill("101");
  await dialog.getByRole("button", { name: "Download PDF" }).click();
  await expect(dialog.getByText("Enter a whole number from 0 to 100")).toBeVisible();
  await spares.fill("2");

  const downloading = page.waitForEvent("download");
  await dialog.getByRole("button", { name: "Download PDF" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe(`${title} - scripts.pdf`);
  const pdf = await PDFDocument.load(await download.createReadStream().then(async (stream) => Buffer.concat(await stream.toArray())));
  expect(pdf.getPageCount()).toBe((CLASS_SIZE + 2) * DEMO_PAPER_PAGES);
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: `${title} - scripts.pdf is downloading: 20 students' scripts and 2 spare copies.` })).toBeVisible();

  // Printed again, the dialog counts the spare copies already made.
  await page.getByRole("button", { name: "Print scripts" }).click();
  await expect(dialog.locator("dd").nth(2)).toHaveText("2");
  await page.setViewportSize({ width: 768, height: 1024 });
  await screenshot(page, testInfo, "print-scripts-dialog-tablet");
  await expectNoAxeViolations(page);
  await dialog.getByRole("button", { name: "Cancel" }).click();
  await expect(dialog).toBeHidden();
});

test("the dialog says why a paper without a PDF cannot be printed", async ({ page }, testInfo) => {
  await signIn(page);
  const created = await page.request.post("/api/exam/templates", { data: { title: `No PDF ${Date.now().toString(36)}`, page_count: 2 } });
  expect(created.status()).toBe(201);
  const batchId = await createBatch(page, ((await created.json()) as { id: string }).id, `No PDF ${Date.now().toString(36)}`);
  await page.goto(`/batches/${batchId}`);
  await page.getByRole("button", { name: "Print scripts" }).click();
  const dialog = page.getByRole("dialog", { name: "Print scripts" });
  await expect(dialog.getByRole("alert")).toContainText("This paper has no PDF to print: add the paper's PDF to its template first");
  // Nothing to download: no spare copies to choose, no Download button, only Close.
  await expect(dialog.getByLabel("Spare copies")).toHaveCount(0);
  await expect(dialog.getByRole("button", { name: "Download PDF" })).toHaveCount(0);
  await expect(dialog.getByRole("button", { name: "Close" })).toBeVisible();
  await screenshot(page, testInfo, "print-scripts-no-pdf");
  await expectNoAxeViolations(page);
  await dialog.getByRole("button", { name: "Close" }).click();
  await expect(dialog).toBeHidden();
});

test("a teacher draws the paper's name box in the template editor, saves it, and removes it", async ({ page }, testInfo) => {
  await signIn(page);
  const created = await page.request.post("/api/exam/templates", { data: { title: `Name box ${Date.now().toString(36)}`, page_count: 2 } });
  const templateId = ((await created.json()) as { id: string }).id;
  const nameBoxOf = async () => ((await (await page.request.get(`/api/exam/templates/${templateId}`)).json()) as { name_box: unknown }).name_box;
  await page.goto(`/templates/${templateId}`);

  const tool = page.getByRole("button", { name: "Name box", exact: true });
  await tool.click();
  await expect(tool).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByText("Draw a box around where students write their name")).toBeVisible();
  await drawArea(page, 1, [0.1, 0.25], [0.9, 0.4]);
  const box = page.getByRole("button", { name: "Name box, page 1" });
  await expect(box).toBeVisible();
  await expect(box).toHaveClass(/area--name-box/);
  // It is no question's area: no question was made for it, and the tool is off again.
  await expect(page.locator(".area")).toHaveCount(1);
  await expect(page.getByRole("button", { name: "Redraw name box" })).toHaveAttribute("aria-pressed", "false");
  await screenshot(page, testInfo, "template-name-box");
  await expectNoAxeViolations(page);

  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("All changes saved")).toBeVisible();
  expect(await nameBoxOf()).toMatchObject({ page: 1, x: expect.closeTo(0.1, 1), y: expect.closeTo(0.25, 1) });

  await box.focus();
  await page.keyboard.press("Delete");
  await expect(page.locator(".area--name-box")).toHaveCount(0);
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("All changes saved")).toBeVisible();
  expect(await nameBoxOf()).toBeNull();
});
