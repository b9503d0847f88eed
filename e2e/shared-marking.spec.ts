import { expect, test } from "@playwright/test";
import { PDFDocument } from "pdf-lib";
import { expectNoAxeViolations, mutate, screenshot, signIn } from "./helpers";

const DEMO_TEMPLATE = "Mathematics Paper 1 (Non-calculator), June 2026 mock";
const COLLEAGUE_EMAIL = "teacher2@northfield.example";
const COLLEAGUE = "James Patel";

async function scanPdf(pages: number): Promise<Buffer> {
  const document = await PDFDocument.create();
  for (let index = 0; index < pages; index++) document.addPage([595, 842]);
  return Buffer.from(await document.save());
}

test("shared marking: the owner invites a colleague and allocates a question; the colleague's screen holds that question only, claimed while open", async ({ page, browser }, testInfo) => {
  test.setTimeout(60_000);
  await signIn(page);

  // A batch of its own (no class) with two scans, so the demo school's batches stay as they were.
  const templates = (await (await page.request.get("/api/exam/templates")).json()) as { templates: { id: string; title: string; page_count: number | null }[] };
  const template = templates.templates.find((entry) => entry.title === DEMO_TEMPLATE)!;
  const batch = await mutate<{ id: string }>(page, "exam.batches.create", { template_id: template.id, title: `Shared mock ${Date.now().toString(36)}` });
  for (const number of [1, 2]) {
    const uploaded = await page.request.post(`/api/exam/batches/${batch.id}/scans`, {
      multipart: { file: { name: `scan-${number}.pdf`, mimeType: "application/pdf", buffer: await scanPdf(template.page_count ?? 1) }, matching_method: "manual" },
    });
    expect(uploaded.status()).toBe(201);
  }

  // The owner invites the colleague and gives them one question.
  await page.goto(`/batches/${batch.id}`);
  const card = page.getByRole("region", { name: "Markers" });
  await expect(card.getByText(/Until you do, anyone on the school's staff can mark this batch/)).toBeVisible();
  await card.getByLabel("Invite a colleague").selectOption({ label: COLLEAGUE });
  await card.getByRole("button", { name: "Invite" }).click();
  await expect(card.getByRole("cell", { name: COLLEAGUE, exact: true })).toBeVisible();
  await card.getByRole("button", { name: "Allocate…" }).click();
  const questionSelect = card.getByLabel("Question");
  const firstQuestion = (await questionSelect.locator("option").nth(1).textContent())!;
  await questionSelect.selectOption({ label: firstQuestion });
  await card.getByRole("button", { name: "Allocate", exact: true }).click();
  await expect(card.getByText(firstQuestion, { exact: true })).toBeVisible();
  await expect(card.getByText("0 of 2 marked")).toBeVisible();
  await screenshot(page, testInfo, "shared-marking-markers-card");
  await expectNoAxeViolations(page, "the batch page with its Markers card");

  // The colleague's marking screen: their allocation only, and the pair they open is claimed for them.
  const colleagueContext = await browser.newContext();
  const colleague = await colleagueContext.newPage();
  await signIn(colleague, COLLEAGUE_EMAIL);
  await colleague.goto(`/batches/${batch.id}/mark`);
  await expect(colleague.getByText("Your allocation")).toBeVisible();
  const strip = colleague.getByRole("navigation", { name: "Questions" });
  await expect(strip.getByRole("button")).toHaveCount(1);
  await expect(colleague.getByRole("heading", { level: 2, name: firstQuestion, exact: true })).toBeVisible();
  await expect
    .poll(async () => ((await (await page.request.get(`/api/exam/batches/${batch.id}/marker-progress`)).json()) as { markers: { full_name: string; claims: number }[] }).markers.find((row) => row.full_name === COLLEAGUE)?.claims)
    .toBe(1);
  await screenshot(colleague, testInfo, "shared-marking-marker-screen");
  await expectNoAxeViolations(colleague, "a marker's marking screen");

  // The owner opening the same script and question is told who is marking it.
  const claimed = ((await (await page.request.get(`/api/exam/batches/${batch.id}/my-work`)).json()) as { scripts: { submission_id: string; claimed_by_others: string[] }[] }).scripts.find(
    (script) => script.claimed_by_others.length > 0,
  )!;
  await page.goto(`/batches/${batch.id}/mark?submission=${claimed.submission_id}`);
  await page.getByRole("navigation", { name: "Questions" }).getByRole("button", { name: firstQuestion, exact: true }).click();
  await expect(page.getByText(`is being marked by ${COLLEAGUE}`)).toBeVisible();
  await screenshot(page, testInfo, "shared-marking-claimed-by-colleague");

  // A second question on one script only: on the other script it is shown but not the colleague's to mark.
  const markers = (await (await page.request.get(`/api/exam/batches/${batch.id}/markers`)).json()) as {
    markers: { user_id: string; full_name: string; allocations: { question_id: string | null }[] }[];
  };
  const marker = markers.markers.find((row) => row.full_name === COLLEAGUE)!;
  const questions = ((await (await page.request.get(`/api/exam/templates/${template.id}`)).json()) as { questions: { id: string; label: string; is_container: boolean }[] }).questions.filter(
    (question) => !question.is_container,
  );
  const first = marker.allocations[0]!.question_id!;
  const second = questions.find((question) => question.id !== first)!;
  const queue = (await (await page.request.get(`/api/exam/batches/${batch.id}/queue`)).json()) as { submissions: { id: string; script_number: number }[] };
  const [inRange, outOfRange] = queue.submissions;
  await mutate(page, "exam.markers.setAllocations", {
    batch_id: batch.id,
    user_id: marker.user_id,
    body: { allocations: [{ question_id: first }, { question_id: second.id, first_script: inRange!.script_number, last_script: inRange!.script_number }] },
  });
  await colleague.goto(`/batches/${batch.id}/mark?submission=${outOfRange!.id}`);
  await expect(strip.getByRole("button")).toHaveCount(2);
  await strip.getByRole("button", { name: `Question ${second.label}`, exact: true }).click();
  await expect(colleague.getByText(`Question ${second.label} of this script is not in your allocation`)).toBeVisible();
  await expect(colleague.locator("#mark-input")).toBeDisabled();
  await expect(colleague.getByRole("button", { name: "Next", exact: true })).toBeVisible();
  await screenshot(colleague, testInfo, "shared-marking-not-in-allocation");
  await colleague.goto(`/batches/${batch.id}/mark?submission=${inRange!.id}`);
  await strip.getByRole("button", { name: `Question ${second.label}`, exact: true }).click();
  await expect(colleague.locator("#mark-input")).toBeEnabled();
  await expect(colleague.getByText("is not in your allocation")).toHaveCount(0);

  await colleagueContext.close();
  await mutate(page, "exam.batches.archive", { batch_id: batch.id });
});
