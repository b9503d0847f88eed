import crypto from "node:crypto";
import { expect, test } from "@playwright/test";
import { expectNoAxeViolations, screenshot, signIn } from "./helpers";
import { scriptPdf } from "./papers";

type Question = { id: string; label: string; max_marks: number | null; is_container: boolean };

/** A calendar day `days` from now, as an <input type="date"> takes it. */
const dayFromNow = (days: number) => {
  const moment = new Date(Date.now() + days * 24 * 3600_000);
  return `${moment.getFullYear()}-${String(moment.getMonth() + 1).padStart(2, "0")}-${String(moment.getDate()).padStart(2, "0")}`;
};

test("release: the owner releases a batch's complete scripts with reviews open until a day (confirming past the moderation warning), sees the release's state, and withdraws it; a colleague sees the state only", async ({ browser, page }, testInfo) => {
  test.setTimeout(180_000);
  await signIn(page);
  // A batch of two scripts: the first completely marked, the second marked on one question.
  const { papers } = (await (await page.request.get("/api/trpc/exam.catalogue.list").then((r) => r.json())).result.data.json) as { papers: { id: string }[] };
  const title = `Released ${Date.now().toString(36)}`;
  const template = (await (await page.request.post("/api/exam/templates", { data: { title, exam_id: papers[0]!.id } })).json()) as { id: string; page_count: number };
  const canvas = (await (await page.request.get(`/api/exam/templates/${template.id}`)).json()) as { questions: Question[] };
  const leaves = canvas.questions.filter((question) => !question.is_container);
  const { classes } = (await (await page.request.get("/database/timetable/classes/teaching")).json()) as { classes: { id: string }[] };
  const batch = await page.request.post("/api/exam/batches", { data: { template_id: template.id, class_id: classes[0]!.id, title } });
  const batchId = ((await batch.json()) as { id: string }).id;
  const scripts: string[] = [];
  for (const who of ["One", "Two"]) {
    const uploaded = await page.request.post(`/api/exam/batches/${batchId}/scans`, {
      multipart: { file: { name: "script.pdf", mimeType: "application/pdf", buffer: await scriptPdf(template.page_count ?? 8, who) }, matching_method: "ordered" },
    });
    expect(uploaded.ok()).toBe(true);
    scripts.push(((await uploaded.json()) as { id: string }).id);
  }
  const mark = async (submissionId: string, questionId: string) => {
    const marked = await page.request.put(`/api/exam/marks/${crypto.randomUUID()}`, { data: { submission_id: submissionId, question_id: questionId, awarded_marks: 0, confirmed: true } });
    expect(marked.status()).toBe(200);
  };
  for (const question of leaves) await mark(scripts[0]!, question.id);
  await mark(scripts[1]!, leaves[0]!.id);

  await page.goto(`/batches/${batchId}`);
  const card = page.getByRole("region", { name: "Results for students" });
  await expect(card.getByTestId("release-state")).toHaveText(/Not released: students see nothing of this batch yet\. 1 script completely marked, 1 script not yet\./);

  // The owner samples the batch for moderation: until a head signs it off, a release warns and asks.
  const sampled = await page.request.put(`/api/exam/batches/${batchId}/moderation/sample`, { data: { submission_ids: [scripts[0]] } });
  expect(sampled.status()).toBe(200);
  await page.reload();
  await expect(card.getByText("Moderation is not signed off yet: marks may still change.")).toBeVisible();

  // The dialog: only complete scripts, reviews open for a week, released despite the moderation.
  await card.getByRole("button", { name: "Release results" }).click();
  const dialog = page.getByRole("dialog", { name: "Release results to students" });
  await expect(dialog.getByLabel("All scripts students sat (2)")).toBeChecked();
  await dialog.getByLabel("Only completely marked scripts (1)").check();
  await dialog.getByLabel("Reviews open until (optional)").fill(dayFromNow(7));
  await expect(dialog.getByText("This batch is being moderated and a department head has not signed it off")).toBeVisible();
  await screenshot(page, testInfo, "release-dialog");
  // Without "Release anyway", the server refuses with its warning, and nothing is released.
  await dialog.getByRole("button", { name: "Release results" }).click();
  await expect(dialog.getByRole("alert")).toHaveText(/being moderated and is not signed off yet/);
  await expect(card.getByTestId("release-state")).toHaveText(/^Not released/);
  await dialog.getByLabel("Release anyway").check();
  await dialog.getByRole("button", { name: "Release results" }).click();
  await expect(dialog).toBeHidden();
  await expect(card.getByText("Released", { exact: true })).toBeVisible();
  await expect(card.getByTestId("release-state")).toHaveText(/^Released on .+ by .+: 1 script \(only completely marked ones\)\. Students can ask for reviews until .+\.$/);
  await expectNoAxeViolations(page, "the batch page with its release");
  await card.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "e2e/artifacts/release-state-laptop.png" });
  await page.setViewportSize({ width: 820, height: 1180 });
  await card.scrollIntoViewIfNeeded();
  await page.screenshot({ path: "e2e/artifacts/release-state-tablet.png" });
  await testInfo.attach("release-state-laptop", { path: "e2e/artifacts/release-state-laptop.png", contentType: "image/png" });
  await testInfo.attach("release-state-tablet", { path: "e2e/artifacts/release-state-tablet.png", contentType: "image/png" });

  // A colleague reads the state, without the owner's buttons.
  const colleagueContext = await browser.newContext();
  const colleague = await colleagueContext.newPage();
  await signIn(colleague, "teacher2@northfield.example");
  await colleague.goto(`/batches/${batchId}`);
  const theirCard = colleague.getByRole("region", { name: "Results for students" });
  await expect(theirCard.getByTestId("release-state")).toHaveText(/^Released on .+: 1 script/);
  await expect(theirCard.getByRole("button")).toHaveCount(0);
  await colleagueContext.close();

  // Withdraw, after confirming.
  await card.getByRole("button", { name: "Withdraw" }).click();
  const confirm = page.getByRole("dialog", { name: "Withdraw the results?" });
  await confirm.getByRole("button", { name: "Withdraw" }).click();
  await expect(confirm).toBeHidden();
  await expect(card.getByTestId("release-state")).toHaveText(/^Not released/);
  await expect(card.getByRole("button", { name: "Release results" })).toBeVisible();
});
