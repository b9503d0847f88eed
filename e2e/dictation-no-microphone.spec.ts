import { expect, test } from "@playwright/test";
import { chromiumLaunchOptions } from "../playwright.config";
import { screenshot, signIn } from "./helpers";
import { scriptPdf } from "./papers";

// The prompt is accepted, but there is no microphone (no fake device): getUserMedia fails with
// NotFoundError, "Requested device not found", as on a desktop without one.
test.use({ launchOptions: { ...chromiumLaunchOptions, args: [...chromiumLaunchOptions.args, "--use-fake-ui-for-media-stream"] } });

test("without a microphone, dictation says so in words a teacher can act on, and the next question starts clean", async ({ page }, testInfo) => {
  await signIn(page);
  // The demo paper by name (several questions, so "Confirm and next" moves on): other specs add ready templates of their own.
  const { templates } = (await (await page.request.get("/api/exam/templates")).json()) as { templates: { id: string; title: string; page_count: number }[] };
  const template = templates.find((t) => t.title === "Mathematics Paper 1 (Non-calculator), June 2026 mock")!;
  const { classes } = (await (await page.request.get("/database/timetable/classes/teaching")).json()) as { classes: { id: string }[] };
  const created = await page.request.post("/api/exam/batches", { data: { template_id: template.id, class_id: classes[0]!.id, title: "No microphone" } });
  const batchId = ((await created.json()) as { id: string }).id;
  const uploaded = await page.request.post(`/api/exam/batches/${batchId}/scans`, {
    multipart: { file: { name: "script.pdf", mimeType: "application/pdf", buffer: await scriptPdf(template.page_count, "No microphone") }, matching_method: "ordered" },
  });
  const submission = (await uploaded.json()) as { id: string };

  await page.goto(`/batches/${batchId}/mark?submission=${submission.id}`);
  const dictate = page.getByRole("button", { name: "Dictate comment" });
  await expect(dictate).toBeEnabled(); // the test server has a model: dictation is on
  await dictate.click();
  const alert = page.getByRole("alert").filter({ hasText: "No microphone was found." });
  await expect(alert).toBeVisible();
  await expect(page.getByText("Requested device not found")).toHaveCount(0);
  await screenshot(page, testInfo, "dictation-no-microphone");

  // The teacher moves on: the message belonged to the last question.
  await page.getByRole("textbox", { name: /^Mark out of/ }).fill("1");
  await page.getByRole("button", { name: "Confirm and next" }).click();
  await expect(alert).toHaveCount(0);
  await expect(dictate).toBeEnabled();
});
