import { expect, test, type Page } from "@playwright/test";
import { PDFDocument } from "pdf-lib";
import { expectNoAxeViolations, screenshot, signIn } from "./helpers";
import { scriptPdf } from "./papers";

/**
 * Piles dropped where they do not belong (issue 33, items 12 and 13): a class's pile uploaded "In order"
 * is refused with what was found and read as a pile in one click; a pile printed for another batch says
 * so in its headline, naming that batch.
 */

const DEMO_TEMPLATE = "Mathematics Paper 1 (Non-calculator), June 2026 mock";

async function demoTemplate(page: Page): Promise<{ id: string; page_count: number }> {
  const { templates } = (await (await page.request.get("/api/exam/templates")).json()) as { templates: { id: string; title: string; status: string; page_count: number }[] };
  return templates.find((t) => t.title === DEMO_TEMPLATE && t.status === "ready")!;
}

/** A batch of the demo template for the teacher's 10A class, never printed. */
async function createBatch(page: Page, templateId: string, title: string): Promise<string> {
  const { classes } = (await (await page.request.get("/database/timetable/classes/teaching")).json()) as { classes: { id: string; name: string }[] };
  const created = await page.request.post("/api/exam/batches", { data: { template_id: templateId, class_id: classes.find((c) => c.name === "10A Mathematics")!.id, title } });
  expect(created.status()).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

test("a class's pile dropped In order is refused with what was found, and read as a pile in one click", async ({ page }, testInfo) => {
  test.setTimeout(300_000);
  await signIn(page);
  const template = await demoTemplate(page);
  const batchId = await createBatch(page, template.id, `Dropped in order ${Date.now().toString(36)}`);
  const pages = template.page_count * 3;

  await page.goto(`/batches/${batchId}`);
  await expect(page.getByRole("radio", { name: "In order (next student without a scan)" })).toBeChecked();
  await page.getByLabel("Choose PDF scans").setInputFiles({ name: "whole class.pdf", mimeType: "application/pdf", buffer: await scriptPdf(pages, "Class pile") });
  const outcome = page.getByRole("list", { name: "Uploaded scans" }).getByRole("listitem").first();
  await expect(outcome).toContainText(`Refused: This scan has ${pages} pages; the paper has ${template.page_count}. It looks like a whole class's pile`, { timeout: 60_000 });
  const offer = outcome.getByRole("button", { name: "Read it as a pile instead" });
  await expect(offer).toBeVisible();
  await screenshot(page, testInfo, "scan-refused-offer-pile", true);
  await expectNoAxeViolations(page);
  // Nothing was matched: every student still has no scan.
  await expect(page.getByText("0 of 1 file uploaded, 1 not uploaded")).toBeVisible();

  await offer.click();
  await expect(outcome).toContainText("Uploaded: its pages are being read and filed");
  const piles = page.getByRole("region", { name: "Scanned piles" });
  await expect(piles.getByText(`${pages} of ${pages} pages filed`)).toBeVisible({ timeout: 240_000 });
  await expect(piles.getByText("3 scripts without a readable student code")).toBeVisible();
  await screenshot(page, testInfo, "scan-read-as-pile", true);
});

test("a pile printed for another batch is headlined as not filed, naming that batch, with its reasons shown", async ({ page }, testInfo) => {
  test.setTimeout(300_000);
  await signIn(page);
  const template = await demoTemplate(page);
  const tag = Date.now().toString(36);
  const physics = await createBatch(page, template.id, `Year 10 Mock — Physics ${tag}`);
  const chemistry = await createBatch(page, template.id, `Year 10 Mock — Chemistry ${tag}`);

  // Two scripts printed for the physics batch, uploaded to the chemistry batch.
  const printed = await page.request.post(`/api/exam/batches/${physics}/printed-scripts`, { data: { spare_copies: 0 } });
  expect(printed.status()).toBe(200);
  const source = await PDFDocument.load(await printed.body());
  const pile = await PDFDocument.create();
  for (const copy of await pile.copyPages(source, Array.from({ length: template.page_count * 2 }, (_, index) => index))) pile.addPage(copy);
  const pages = template.page_count * 2;

  await page.goto(`/batches/${chemistry}`);
  await page.getByRole("radio", { name: "By the codes printed on the pages" }).check();
  await page.getByLabel("Choose PDF scans").setInputFiles({ name: "Physics set.pdf", mimeType: "application/pdf", buffer: Buffer.from(await pile.save()) });
  const piles = page.getByRole("region", { name: "Scanned piles" });
  await expect(piles.getByText(`0 of ${pages} pages filed: all ${pages} were printed for another batch, “Year 10 Mock — Physics ${tag}”`)).toBeVisible({ timeout: 240_000 });
  await expect(piles.getByRole("list", { name: "Pages of Physics set.pdf refused" })).toContainText(`${pages} pages: Printed for another batch, “Year 10 Mock — Physics ${tag}”`);
  await screenshot(page, testInfo, "pile-of-another-batch", true);
  await expectNoAxeViolations(page);
});
