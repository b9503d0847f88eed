import { expect, test, type Page } from "@playwright/test";
import { expectNoAxeViolations, screenshot, signIn } from "./helpers";
import { scriptPdf } from "./papers";

const DEMO_TEMPLATE = "Mathematics Paper 1 (Non-calculator), June 2026 mock";

/** A batch of the demo template through the REST paths (the session cookie rides along), for the teacher's class or none. */
async function createBatch(page: Page, withClass: boolean): Promise<string> {
  const { templates } = (await (await page.request.get("/api/exam/templates")).json()) as { templates: { id: string; title: string; status: string }[] };
  const template = templates.find((t) => t.title === DEMO_TEMPLATE && t.status === "ready")!;
  let classId: string | null = null;
  if (withClass) {
    const { classes } = (await (await page.request.get("/database/timetable/classes/teaching")).json()) as { classes: { id: string; name: string }[] };
    classId = classes.find((c) => c.name === "10A Mathematics")!.id;
  }
  const title = `Unmatched ${withClass ? "roster" : "no class"} ${Date.now().toString(36)}`;
  const created = await page.request.post("/api/exam/batches", { data: { template_id: template.id, class_id: classId, title } });
  expect(created.status()).toBe(201);
  return ((await created.json()) as { id: string }).id;
}

test("an unmatched scan is assigned to a student of the batch from the queue", async ({ page }, testInfo) => {
  await signIn(page);
  const batchId = await createBatch(page, true);
  // A manual upload without a student matches nobody: an unmatched submission.
  const uploaded = await page.request.post(`/api/exam/batches/${batchId}/scans`, {
    multipart: { file: { name: "smudged.pdf", mimeType: "application/pdf", buffer: await scriptPdf(1, "Smudged script") } },
  });
  expect(uploaded.status()).toBe(201);
  expect(await uploaded.json()).toMatchObject({ status: "unmatched", student_id: null });

  await page.goto(`/batches/${batchId}`);
  await expect(page.getByRole("heading", { name: "Queue: 21 submissions" })).toBeVisible();
  const unmatchedRow = page.getByTestId("queue-row").filter({ hasText: "Unmatched scan" });
  await expect(unmatchedRow).toHaveCount(1);
  await expect(unmatchedRow.locator(".badge")).toHaveText("Needs a student");
  await screenshot(page, testInfo, "assign-scan-queue", true);
  await unmatchedRow.getByRole("button", { name: /^Assign to student/ }).click();

  const dialog = page.getByRole("dialog", { name: "Assign scan to a student" });
  await expect(dialog).toBeVisible();
  const student = dialog.getByLabel("Student", { exact: true });
  await expect(student).toBeFocused();
  await expect(dialog.getByText("20 students of this batch without a scan yet.")).toBeVisible();
  await expect(dialog.getByRole("link", { name: "Open the scan" })).toHaveAttribute("href", new RegExp(`/api/exam/submissions/[0-9a-f-]{36}/scan$`));
  await student.selectOption({ label: "Noah Khan" });
  await screenshot(page, testInfo, "assign-scan-dialog");
  await expectNoAxeViolations(page);

  await dialog.getByRole("button", { name: "Assign scan" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: "Scan assigned to Noah Khan" })).toBeVisible();
  await expect(page.getByRole("heading", { name: "Queue: 20 submissions" })).toBeVisible();
  await expect(page.getByTestId("queue-row").filter({ hasText: "Unmatched scan" })).toHaveCount(0);
  const noahRow = page.getByTestId("queue-row").filter({ hasText: "Noah Khan" });
  await expect(noahRow).toContainText("Not marked");
  await expect(noahRow.getByRole("link", { name: "Mark Noah Khan" })).toBeVisible();
  await expect(page.getByText("19 no scan yet")).toBeVisible();
  await screenshot(page, testInfo, "assign-scan-done", true);

  // The scan's bytes now come with Noah's submission.
  const queue = (await (await page.request.get(`/api/exam/batches/${batchId}/queue`)).json()) as { submissions: { id: string; student_name: string | null }[] };
  const noah = queue.submissions.find((s) => s.student_name === "Noah Khan")!;
  const scan = await page.request.get(`/api/exam/submissions/${noah.id}/scan`);
  expect(scan.status()).toBe(200);
  expect((await scan.body()).subarray(0, 5).toString()).toBe("%PDF-");
});

test("a scan of a batch without a class is assigned from the upload list to a student of the school", async ({ page }, testInfo) => {
  await signIn(page);
  const batchId = await createBatch(page, false);
  await page.goto(`/batches/${batchId}`);
  await page.getByLabel("Choose PDF scans").setInputFiles({ name: "loose-script.pdf", mimeType: "application/pdf", buffer: await scriptPdf(1, "Loose script") });
  const outcome = page.getByRole("list", { name: "Uploaded scans" }).getByRole("listitem").first();
  await expect(outcome).toContainText("Needs a student");
  await outcome.getByRole("button", { name: "Assign to student" }).click();

  const dialog = page.getByRole("dialog", { name: "Assign scan to a student" });
  await expect(dialog.getByText("This batch has no class list: choose any student of the school.")).toBeVisible();
  await expect(dialog.getByRole("checkbox")).toHaveCount(0);
  await dialog.getByLabel("Search students").fill("poppy");
  await expect(dialog.getByText("1 student of the school without a submission in this batch.")).toBeVisible();
  await expect(dialog.getByLabel("Student", { exact: true })).toHaveValue(/[0-9a-f-]{36}/);
  await screenshot(page, testInfo, "assign-scan-dialog-school");
  await expectNoAxeViolations(page);

  // Nothing matching: submitting says so instead of sending anything.
  await dialog.getByLabel("Search students").fill("nobody-is-called-this");
  await dialog.getByRole("button", { name: "Assign scan" }).click();
  await expect(dialog.getByText("No student matches this search.")).toBeVisible();
  await dialog.getByLabel("Search students").fill("poppy");
  await dialog.getByRole("button", { name: "Assign scan" }).click();
  await expect(dialog).toBeHidden();

  await expect(outcome).toContainText("Assigned to Poppy Singh.");
  const row = page.getByTestId("queue-row").filter({ hasText: "Poppy Singh" });
  await expect(row).toContainText("Not marked");
  await expect(page.getByTestId("queue-row")).toHaveCount(1);
});
