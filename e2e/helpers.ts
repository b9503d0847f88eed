import crypto from "node:crypto";
import AxeBuilder from "@axe-core/playwright";
import { expect, type Locator, type Page, type TestInfo } from "@playwright/test";
import { scriptPdf, twoPagePaper } from "./papers";

export const TEACHER_EMAIL = "teacher@northfield.example";
export const ADMIN_EMAIL = "admin@northfield.example";
export const STUDENT_EMAIL = "student01@northfield.example";
export const DEMO_PASSWORD = "markbook-demo";

/** Saves a screenshot under e2e/artifacts/ (kept by CI) and attaches it to the test report. */
export async function screenshot(page: Page, testInfo: TestInfo, name: string, fullPage = false): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  const path = `e2e/artifacts/${name}.png`;
  await page.screenshot({ path, fullPage });
  await testInfo.attach(name, { path, contentType: "image/png" });
}

export async function fillSignIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Calls a tRPC mutation as the signed-in user of `page` (setting up data the spec is not about). */
export async function mutate<T>(page: Page, path: string, input: unknown): Promise<T> {
  const response = await page.request.post(`/api/trpc/${path}?batch=1`, { data: { 0: { json: input } } });
  expect(response.ok(), `${path}: ${await response.text()}`).toBe(true);
  return (await response.json())[0].result.data.json as T;
}

/** A ready template of the signed-in teacher's own, on a two-page paper, with one part worth 5 marks (question 1), made through the API. */
export async function templateWithOnePart(page: Page, title: string): Promise<{ template: { id: string }; questionId: string }> {
  const upload = await page.request.post("/api/exam/files", { multipart: { file: { name: "paper.pdf", mimeType: "application/pdf", buffer: await twoPagePaper() } } });
  expect(upload.status()).toBe(201);
  const file = (await upload.json()) as { id: string; page_count: number };
  const template = await mutate<{ id: string }>(page, "exam.templates.create", { title, source_file_id: file.id, page_count: file.page_count });
  const questionId = crypto.randomUUID();
  await mutate(page, "exam.templates.save", {
    template_id: template.id,
    body: {
      status: "ready",
      questions: [{ id: questionId, parent_id: null, label: "1", order: 0, max_marks: 5, answer_type: null, mark_scheme: null, spec_ref: null, is_container: false }],
      response_areas: [{ id: crypto.randomUUID(), question_id: questionId, page: 1, kind: "response", response_form: null, x: 0.1, y: 0.2, width: 0.8, height: 0.3 }],
      boundaries: [],
    },
  });
  return { template, questionId };
}

/**
 * Follows a link and waits for its page's URL. On a busy machine a click that lands while the page is
 * still settling can be lost (other projects report the same of Next.js 16, e.g. payloadcms/payload#15790),
 * so the link is clicked again while the URL has not changed; a click that did navigate is not repeated.
 */
export async function followLink(page: Page, link: Locator, url: RegExp): Promise<void> {
  await expect(async () => {
    if (!url.test(page.url())) await link.click({ timeout: 5_000 });
    await expect(page).toHaveURL(url, { timeout: 5_000 });
  }).toPass({ timeout: 30_000 });
}

/** Opens an area of the main navigation (Templates, Batches, Timetables, Classes, People, Settings) and waits for its URL. */
export async function openArea(page: Page, label: string): Promise<void> {
  await followLink(page, page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: label }), new RegExp(`/${label.toLowerCase()}$`));
}

/** Signs in through the form and waits for the signed-in area: staff start at their templates (students at their timetable). */
export async function signIn(page: Page, email = TEACHER_EMAIL, password = DEMO_PASSWORD, landing = /\/templates$/): Promise<void> {
  await page.goto("/signin");
  await fillSignIn(page, email, password);
  await expect(page).toHaveURL(landing);
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
}

/**
 * axe-core rules for WCAG 2.1 A and AA plus its best practices (landmarks, heading order); a violation
 * lists the rule, its impact and the offending elements.
 */
export async function expectNoAxeViolations(page: Page, context = page.url()): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  const summary = results.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).join(", ")}`);
  expect(summary, `accessibility violations on ${context}`).toEqual([]);
}

/**
 * On a batch page: two scans matched in order, then one for the last student of the list. Returns the
 * first script's student, the chosen one, the file input and the list of uploads.
 */
export async function uploadTwoInOrderAndOneChosen(page: Page, pages: number) {
  const files = page.getByLabel("Choose PDF scans");
  await files.setInputFiles([
    { name: "first.pdf", mimeType: "application/pdf", buffer: await scriptPdf(pages, "First script") },
    { name: "second.pdf", mimeType: "application/pdf", buffer: await scriptPdf(pages, "Second script") },
  ]);
  const uploads = page.getByRole("list", { name: "Uploaded scans" }).getByRole("listitem");
  await expect(uploads.nth(0)).toContainText(/Matched to .+/);
  await expect(uploads.nth(1)).toContainText(/Matched to .+/);
  const first = ((await uploads.nth(0).locator(".upload-item__result").textContent()) ?? "").replace("Matched to ", "").trim();
  await page.getByLabel("To a chosen student").check();
  const studentSelect = page.getByLabel("Student", { exact: true });
  const chosen = (await studentSelect.locator("option").last().textContent())!.trim();
  await studentSelect.selectOption({ label: chosen });
  await files.setInputFiles({ name: "chosen.pdf", mimeType: "application/pdf", buffer: await scriptPdf(pages, "Chosen script") });
  await expect(uploads.nth(2)).toContainText(`Matched to ${chosen}`);
  return { first, chosen, files, uploads };
}

/**
 * A template opened on its paper with no questions yet has its paper read (issue 37): a spec that builds the
 * template by hand discards what was read first, as a teacher would with "Discard what was read".
 */
export async function discardProposal(page: Page): Promise<void> {
  const panel = page.locator(".proposal");
  await expect(panel).toBeVisible({ timeout: 30_000 });
  await expect(panel.getByRole("heading", { name: "Reading the paper…" })).toBeHidden({ timeout: 30_000 });
  const discard = panel.getByRole("button", { name: "Discard what was read" });
  if (await discard.isVisible()) await discard.click();
  await expect(page.locator(".question-row--proposed")).toHaveCount(0);
}
