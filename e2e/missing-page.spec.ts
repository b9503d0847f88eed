import { expect, test, type Page } from "@playwright/test";
import { PDFDocument } from "pdf-lib";
import { expectNoAxeViolations, screenshot, signIn } from "./helpers";

/**
 * Issue 32, item 2: a script whose page 2 was not scanned. The marking screen shows page 2 missing where
 * it belongs, with the sentence, draws no box of page 2's question over page 3, and says where the mark
 * is entered that the question cannot be marked from this script.
 */

const DEMO_TEMPLATE = "Mathematics Paper 1 (Non-calculator), June 2026 mock";
const PAGES = 4;

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

async function json<T>(page: Page, url: string): Promise<T> {
  const response = await page.request.get(url);
  expect(response.status(), url).toBe(200);
  return (await response.json()) as T;
}

interface Canvas {
  questions: { id: string; label: string; is_container: boolean }[];
  response_areas: { question_id: string; page: number; kind: string }[];
}

test("a script without page 2: the page shows as missing in its place, no box is drawn on page 3, and its question says so", async ({ page }, testInfo) => {
  test.setTimeout(300_000);
  await signIn(page);
  const { templates } = await json<{ templates: { id: string; title: string; status: string }[] }>(page, "/api/exam/templates");
  const template = templates.find((t) => t.title === DEMO_TEMPLATE && t.status === "ready")!;
  const canvas = await json<Canvas>(page, `/api/exam/templates/${template.id}`);
  const answeredOn = (pageNumber: number) =>
    canvas.questions.find((question) => !question.is_container && canvas.response_areas.some((area) => area.question_id === question.id && area.kind === "response" && area.page === pageNumber))!;
  const onPage2 = answeredOn(2);
  const onPage3 = answeredOn(3);
  expect(onPage2).toBeTruthy();
  expect(onPage3).toBeTruthy();
  // A question answered on page 2 only: none of its areas is on another page.
  expect(canvas.response_areas.filter((area) => area.question_id === onPage2.id).every((area) => area.page === 2)).toBe(true);

  const { classes } = await json<{ classes: { id: string; name: string }[] }>(page, "/database/timetable/classes/teaching");
  const title = `Missing page ${Date.now().toString(36)}`;
  const created = await page.request.post("/api/exam/batches", { data: { template_id: template.id, class_id: classes.find((c) => c.name === "10A Mathematics")!.id, title } });
  expect(created.status()).toBe(201);
  const batchId = ((await created.json()) as { id: string }).id;

  // Print the class set, then scan the first script without its page 2.
  await page.goto(`/batches/${batchId}`);
  await page.getByRole("button", { name: "Print scripts" }).click();
  const dialog = page.getByRole("dialog", { name: "Print scripts" });
  const downloading = page.waitForEvent("download");
  await dialog.getByRole("button", { name: "Download PDF" }).click();
  const printed = await PDFDocument.load(new Uint8Array(Buffer.concat(await (await (await downloading).createReadStream()).toArray())));
  const pile = await PDFDocument.create();
  for (const copy of await pile.copyPages(printed, [0, 2, 3])) pile.addPage(copy);
  const uploaded = await page.request.post(`/api/exam/batches/${batchId}/piles`, {
    multipart: { file: { name: "without page 2.pdf", mimeType: "application/pdf", buffer: Buffer.from(await pile.save()) } },
  });
  expect(uploaded.status()).toBe(202);
  await expect
    .poll(async () => (await json<{ piles: { status: string }[] }>(page, `/api/exam/batches/${batchId}/intake`)).piles[0]?.status, { timeout: 180_000, intervals: [1000] })
    .toBe("done");
  const queue = await json<{ submissions: { id: string; scan_url: string | null }[] }>(page, `/api/exam/batches/${batchId}/queue`);
  const scanned = queue.submissions.filter((submission) => submission.scan_url !== null);
  expect(scanned).toHaveLength(1);

  // The marking screen, on the question answered on page 2.
  await page.goto(`/batches/${batchId}/mark?submission=${scanned[0]!.id}`);
  const scan = page.getByRole("region", { name: /^Scan of / });
  await expect(scan.locator("canvas").first()).toBeVisible({ timeout: 60_000 });
  await page.getByRole("navigation", { name: "Questions" }).getByRole("button", { name: new RegExp(`^Question ${escaped(onPage2.label)}(,|$)`) }).click();
  await expect(page.getByRole("heading", { level: 2, name: `Question ${onPage2.label}` })).toBeVisible();

  const missing = scan.getByRole("region", { name: new RegExp(`page 2 of ${PAGES}, not scanned$`) });
  await expect(missing).toHaveText("Page 2 was not scanned: its questions cannot be marked from this script.");
  await expect(missing).toBeInViewport();
  // Pages 1, 3 and 4 are there, in their places; no box of question on page 2 is drawn anywhere, least of all on page 3.
  const pages = scan.locator(".scan-viewer__page");
  await expect(pages).toHaveCount(PAGES);
  await expect(pages.nth(1)).toHaveAttribute("data-testid", "missing-page");
  const page3 = scan.getByRole("region", { name: new RegExp(`page 3 of ${PAGES}$`) });
  await expect(page3.locator("canvas")).toHaveCount(1);
  await expect(page3.locator(".scan-viewer__area--response")).toHaveCount(0);
  await expect(scan.locator(".scan-viewer__area--response")).toHaveCount(0);
  // Where the mark is entered: the warning, and the mark may still be typed.
  const entry = page.getByRole("complementary", { name: "Marking" });
  await expect(entry.getByText("Page 2 was not scanned", { exact: true })).toBeVisible();
  await expect(entry.getByText(`Question ${onPage2.label} cannot be marked from this script. If you have the paper, you may still type its mark.`)).toBeVisible();
  await expect(page.getByRole("navigation", { name: "Questions" }).getByRole("button", { name: new RegExp(`^Question ${escaped(onPage2.label)},.*page not scanned$`) })).toBeVisible();
  await expect(page.getByRole("textbox", { name: /^Mark/ })).toBeEnabled();
  await screenshot(page, testInfo, "marking-missing-page");
  await expectNoAxeViolations(page);

  // The question answered on page 3: its box on page 3, no warning.
  await page.getByRole("navigation", { name: "Questions" }).getByRole("button", { name: new RegExp(`^Question ${escaped(onPage3.label)}(,|$)`) }).click();
  await expect(page.getByRole("heading", { level: 2, name: `Question ${onPage3.label}` })).toBeVisible();
  await expect(page3.locator(".scan-viewer__area--response").first()).toBeVisible();
  await expect(entry.getByText("Page 2 was not scanned", { exact: true })).toHaveCount(0);
  await screenshot(page, testInfo, "marking-page-3-after-missing-page");
});
