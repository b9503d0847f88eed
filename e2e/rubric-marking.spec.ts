import crypto from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import { expectNoAxeViolations, screenshot, signIn } from "./helpers";
import { scriptPdf } from "./papers";

type Question = { id: string; label: string; max_marks: number | null; is_container: boolean };
type Item = { id: string; text: string; points: number };

const FOUR_ITEMS = [
  { text: "Finds the number who walk: 210", points: 1, comment: "Good start" },
  { text: "Takes 40% of the rest", points: 1 },
  { text: "Answer 140", points: 1, spec_ref: "R9" },
  { text: "Arithmetic slip", points: -1 },
];

/** Six items as teachers write them: some long, with specification points and saved comments. */
const SIX_ITEMS = [
  { text: "Finds the number of students who walk to school: 30% of 700 = 210", points: 1, comment: "Good start: the percentage of the whole is right" },
  { text: "Finds the rest who do not walk: 700 − 210 = 490", points: 1, spec_ref: "R9" },
  { text: "Takes 40% of the rest, not of the whole year group", points: 1, comment: "Read the question again: 40% of those who do not walk" },
  { text: "Answer 196 with working shown", points: 1, spec_ref: "R9" },
  { text: "Arithmetic slip in an otherwise correct method", points: -1 },
  { text: "No working shown", points: -1, comment: "Show each step so method marks can be given" },
];

/**
 * A template of the teacher's own from the demo catalogue paper (so that no other spec's paper gets a
 * rubric), a rubric on question 2 (3 marks), and a batch of the teacher's class with two scans.
 */
async function rubricBatch(page: Page, rubric: readonly Record<string, unknown>[] = FOUR_ITEMS) {
  const { papers } = (await (await page.request.get("/api/trpc/exam.catalogue.list").then((r) => r.json())).result.data.json) as { papers: { id: string }[] };
  const title = `Rubric paper ${Date.now().toString(36)}`;
  const created = await page.request.post("/api/exam/templates", { data: { title, exam_id: papers[0]!.id } });
  expect(created.status()).toBe(201);
  const template = (await created.json()) as { id: string; page_count: number };
  const canvas = (await (await page.request.get(`/api/exam/templates/${template.id}`)).json()) as { questions: Question[] };
  const question = canvas.questions.find((q) => q.label === "2" && !q.is_container)!;
  const items: Item[] = [];
  for (const body of rubric) {
    const reply = await page.request.post(`/api/exam/questions/${question.id}/rubric-items`, { data: body });
    expect(reply.status()).toBe(201);
    items.push((await reply.json()) as Item);
  }
  const { classes } = (await (await page.request.get("/database/timetable/classes/teaching")).json()) as { classes: { id: string }[] };
  const batch = await page.request.post("/api/exam/batches", { data: { template_id: template.id, class_id: classes[0]!.id, title } });
  expect(batch.status()).toBe(201);
  const batchId = ((await batch.json()) as { id: string }).id;
  const scripts = [];
  for (const who of ["First rubric script", "Second rubric script"]) {
    const uploaded = await page.request.post(`/api/exam/batches/${batchId}/scans`, {
      multipart: { file: { name: "script.pdf", mimeType: "application/pdf", buffer: await scriptPdf(template.page_count ?? 8, who) }, matching_method: "ordered" },
    });
    expect(uploaded.ok()).toBe(true);
    scripts.push((await uploaded.json()) as { id: string; student_name: string });
  }
  return { batchId, question, items, scripts };
}

test("a marker applies rubric items by their keys, the mark is their sum, and a rubric edit re-scores it", async ({ page }, testInfo) => {
  test.setTimeout(150_000);
  await signIn(page);
  const { batchId, question, items, scripts } = await rubricBatch(page);

  await page.goto(`/batches/${batchId}/mark?submission=${scripts[0]!.id}`);
  await expect(page.getByRole("heading", { level: 1, name: scripts[0]!.student_name })).toBeVisible();
  const markInput = page.getByRole("textbox", { name: /^Mark out of/ });
  await expect(markInput).toBeFocused();
  await page.getByRole("navigation", { name: "Questions" }).getByRole("button", { name: /^Question 2\b/ }).click();
  await expect(page.getByRole("heading", { level: 2, name: "Question 2" })).toBeVisible();
  const rubric = page.getByRole("region", { name: "Rubric of question 2" });
  await expect(rubric.getByRole("listitem")).toHaveCount(4);

  // Enter on a question with nothing applied records nothing (no 0 by itself): it says how to give 0, and stays.
  await markInput.focus();
  await page.keyboard.press("Enter");
  await expect(page.locator("#mark-error")).toHaveText(/^Nothing is recorded for this question yet: apply items, or press 0 to give no marks\./);
  await expect(page.getByRole("navigation", { name: "Questions" }).getByRole("button", { name: /^Question 2\b/ })).toHaveAttribute("aria-current", "step");
  await expect(markInput).toHaveValue("");

  // Digits apply items (from the mark too); the mark is their sum, shown with the items that made it.
  await page.keyboard.press("1");
  await page.keyboard.press("3");
  await expect(rubric.getByRole("button", { name: /Finds the number who walk/ })).toHaveAttribute("aria-pressed", "true");
  await expect(rubric.getByRole("button", { name: /Answer 140/ })).toHaveAttribute("aria-pressed", "true");
  await expect(markInput).toHaveValue("2");
  await expect(page.getByText("Items 1 and 3: 2.")).toBeVisible();
  // A click toggles as the key does, and the focus goes back to the mark (Enter confirms, not the button).
  await rubric.getByRole("button", { name: /Takes 40% of the rest/ }).click();
  await expect(markInput).toBeFocused();
  await expect(markInput).toHaveValue("3");
  await page.keyboard.press("4");
  await expect(markInput).toHaveValue("2");
  await expect(rubric.getByRole("status")).toHaveText("Item 4 applied: Arithmetic slip (−1). Mark 2 out of 3.");
  // The same key again removes the item, and says so: on the item and in the live region.
  await page.keyboard.press("4");
  await expect(markInput).toHaveValue("3");
  await expect(rubric.getByRole("button", { name: /Arithmetic slip/ })).toContainText("Removed");
  await expect(rubric.getByRole("status")).toHaveText("Item 4 removed: Arithmetic slip (−1). Mark 3 out of 3.");
  await screenshot(page, testInfo, "marking-rubric");
  await expectNoAxeViolations(page);

  // Enter confirms and moves on; the saved mark carries its items.
  const saved = page.waitForResponse((response) => response.url().includes("exam.marks.upsert") && response.request().method() === "POST");
  await page.keyboard.press("Enter");
  expect((await saved).ok()).toBe(true);
  await expect(page.getByRole("heading", { level: 2, name: "Question 2" })).toBeHidden();
  const marks = async (submissionId: string) =>
    (
      (await (await page.request.get(`/api/trpc/exam.marks.forSubmission?input=${encodeURIComponent(JSON.stringify({ json: { submission_id: submissionId } }))}`)).json())
        .result.data.json as { marks: { question_id: string; awarded_marks: number; confirmed: boolean; mark_scheme_detail: { items: string[] } | null }[] }
    ).marks.find((mark) => mark.question_id === question.id);
  await expect.poll(async () => (await marks(scripts[0]!.id))?.confirmed).toBe(true);
  const first = await marks(scripts[0]!.id);
  expect(first).toMatchObject({ awarded_marks: 3, mark_scheme_detail: { type: "rubric" } });
  expect([...first!.mark_scheme_detail!.items].sort()).toEqual([items[0]!.id, items[1]!.id, items[2]!.id].sort());

  // The owner makes the first item worth nothing: the saved mark follows at once, in the results too.
  const edited = await page.request.patch(`/api/exam/rubric-items/${items[0]!.id}`, { data: { points: 0 } });
  expect(await edited.json()).toMatchObject({ marks_rescored: 1 });
  expect((await marks(scripts[0]!.id))?.awarded_marks).toBe(2);
  const results = (await (await page.request.get(`/api/exam/batches/${batchId}/results`)).json()) as { results: { submission_id: string; marks: Record<string, number | null> }[] };
  expect(results.results.find((row) => row.submission_id === scripts[0]!.id)!.marks[question.id]).toBe(2);

  // Back on the script after a reload: the items applied are shown pressed, the mark re-scored.
  await page.goto(`/batches/${batchId}/mark?submission=${scripts[0]!.id}`);
  await page.getByRole("navigation", { name: "Questions" }).getByRole("button", { name: /^Question 2\b/ }).click();
  await expect(markInput).toHaveValue("2");
  await expect(rubric.getByRole("button", { name: /Answer 140/ })).toHaveAttribute("aria-pressed", "true");
  await expect(rubric.getByRole("button", { name: /Arithmetic slip/ })).toHaveAttribute("aria-pressed", "false");

  // The owner edits the rubric while marking: the dialog saves at once, and the script's mark follows.
  await page.getByRole("button", { name: "Edit rubric" }).click();
  const dialog = page.getByRole("dialog", { name: "Rubric of question 2" });
  await dialog.getByRole("button", { name: "Edit “Answer 140”" }).click();
  await dialog.getByLabel("Points").fill("2");
  await page.keyboard.press("Enter");
  await expect(dialog.getByRole("status")).toHaveText("“Answer 140” is now +2. Re-scored 1 mark.");
  await screenshot(page, testInfo, "marking-rubric-dialog");
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toBeHidden();
  await expect(markInput).toHaveValue("3");
  await expect(markInput).toBeFocused();
  // Keys work again once the dialog is closed.
  await page.keyboard.press("4");
  await expect(markInput).toHaveValue("2");
});

test("a colleague marks with the rubric but cannot edit it, and the comment bank offers and saves comments", async ({ page }, testInfo) => {
  test.setTimeout(150_000);
  await signIn(page);
  const { batchId, question, scripts } = await rubricBatch(page);
  // Two marks with the same comment make it one of the most given.
  for (const script of scripts) {
    const reply = await page.request.put(`/api/exam/marks/${crypto.randomUUID()}`, {
      data: { submission_id: script.id, question_id: question.id, awarded_marks: null, comment: "Show the 350 before taking 40%" },
    });
    expect(reply.ok()).toBe(true);
  }
  // Only the owner, a department head or an invited marker marks a batch: the owner invites the colleague for every script.
  const { candidates } = (await (await page.request.get(`/api/exam/batches/${batchId}/markers`)).json()) as { candidates: { user_id: string; full_name: string }[] };
  const colleague = candidates.find((candidate) => candidate.full_name === "James Patel")!;
  expect((await page.request.post(`/api/exam/batches/${batchId}/markers`, { data: { user_id: colleague.user_id } })).ok()).toBe(true);
  expect((await page.request.put(`/api/exam/batches/${batchId}/markers/${colleague.user_id}/allocations`, { data: { allocations: [{ first_script: 1 }] } })).ok()).toBe(true);
  await page.context().clearCookies();
  await signIn(page, "teacher2@northfield.example");
  await page.goto(`/batches/${batchId}/mark?submission=${scripts[1]!.id}`);
  await page.getByRole("navigation", { name: "Questions" }).getByRole("button", { name: /^Question 2\b/ }).click();
  await expect(page.getByRole("region", { name: "Rubric of question 2" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Edit rubric" })).toHaveCount(0);

  const offered = page.getByRole("list", { name: "Comments for question 2" });
  await expect(offered.getByRole("button", { name: /Show the 350 before taking 40%/ })).toContainText("given 2×");
  const comment = page.getByRole("textbox", { name: /^Comment/ });
  await comment.fill("Check the arithmetic");
  await offered.getByRole("button", { name: /Show the 350/ }).click();
  await expect(comment).toHaveValue("Check the arithmetic Show the 350 before taking 40%");
  await expect(comment).toBeFocused();
  await comment.fill("Neat working, well done");
  await page.getByRole("button", { name: "Save this comment for question 2" }).click();
  await expect(offered.getByRole("button", { name: /Neat working, well done/ })).toContainText("saved");
  await expect(page.getByRole("button", { name: "Save this comment for question 2" })).toHaveCount(0);
  await screenshot(page, testInfo, "marking-comment-bank");
  await expectNoAxeViolations(page);
});

for (const viewport of [
  { width: 1366, height: 900 },
  { width: 1024, height: 768 },
  { width: 768, height: 1024 },
]) {
  test(`every item of a six-item rubric is on screen with its key at ${viewport.width}×${viewport.height}, and so are the mark and Confirm`, async ({ page }, testInfo) => {
    test.setTimeout(150_000);
    await page.setViewportSize(viewport);
    await signIn(page);
    const { batchId, scripts } = await rubricBatch(page, SIX_ITEMS);
    await page.goto(`/batches/${batchId}/mark?submission=${scripts[0]!.id}`);
    await page.getByRole("navigation", { name: "Questions" }).getByRole("button", { name: /^Question 2\b/ }).click();
    const rubric = page.getByRole("region", { name: "Rubric of question 2" });
    const buttons = rubric.getByRole("listitem").getByRole("button");
    await expect(buttons).toHaveCount(SIX_ITEMS.length);
    // Wholly inside the window and not clipped by a scrolling box (an IntersectionObserver's ratio of 1).
    for (const [index, item] of SIX_ITEMS.entries()) {
      const button = buttons.nth(index);
      await expect(button).toBeVisible();
      await expect(button).toContainText(item.text);
      await expect(button.locator("kbd")).toHaveText(String(index + 1));
      await expect(button).toBeInViewport({ ratio: 1 });
    }
    await expect(page.getByRole("textbox", { name: /^Mark out of/ })).toBeInViewport({ ratio: 1 });
    await expect(page.getByRole("button", { name: "Confirm and next" })).toBeInViewport({ ratio: 1 });
    // The page itself does not scroll: everything above was seen at once.
    expect(await page.evaluate(() => document.documentElement.scrollHeight - window.innerHeight)).toBeLessThanOrEqual(0);
    await screenshot(page, testInfo, `marking-rubric-six-items-${viewport.width}x${viewport.height}`);
  });
}

test("a question left empty stays empty; 0 is given on purpose with No marks, and a removed last item empties the mark", async ({ page }, testInfo) => {
  test.setTimeout(150_000);
  await signIn(page);
  const { batchId, question, scripts } = await rubricBatch(page);
  const recorded = async () =>
    (
      (await (await page.request.get(`/api/trpc/exam.marks.forSubmission?input=${encodeURIComponent(JSON.stringify({ json: { submission_id: scripts[0]!.id } }))}`)).json())
        .result.data.json as { marks: { question_id: string; awarded_marks: number | null; confirmed: boolean; mark_scheme_detail: { items: string[] } | null }[] }
    ).marks.find((mark) => mark.question_id === question.id);
  await page.goto(`/batches/${batchId}/mark?submission=${scripts[0]!.id}`);
  await page.getByRole("navigation", { name: "Questions" }).getByRole("button", { name: /^Question 2\b/ }).click();
  const markInput = page.getByRole("textbox", { name: /^Mark out of/ });
  const rubric = page.getByRole("region", { name: "Rubric of question 2" });
  await markInput.focus();

  // An item applied and removed again: the mark is empty, not 0, and Enter still records nothing.
  await page.keyboard.press("2");
  await expect(markInput).toHaveValue("1");
  await page.keyboard.press("2");
  await expect(markInput).toHaveValue("");
  await expect(rubric.getByRole("status")).toHaveText("Item 2 removed: Takes 40% of the rest (+1). No item is applied: no mark yet.");
  await page.keyboard.press("Enter");
  await expect(page.locator("#mark-error")).toContainText("Nothing is recorded for this question yet");
  await expect.poll(async () => (await recorded())?.awarded_marks ?? null).toBeNull();

  // 0 gives no marks on purpose: the button is pressed, the hint says so, and Enter records 0 made of no item.
  await page.keyboard.press("0");
  await expect(markInput).toHaveValue("0");
  await expect(rubric.getByRole("button", { name: "No marks" })).toHaveAttribute("aria-pressed", "true");
  await expect(page.getByText("No marks: 0, given on purpose.")).toBeVisible();
  await screenshot(page, testInfo, "marking-rubric-no-marks");
  const saved = page.waitForResponse((response) => response.url().includes("exam.marks.upsert") && response.request().method() === "POST");
  await page.keyboard.press("Enter");
  expect((await saved).ok()).toBe(true);
  await expect.poll(async () => (await recorded())?.confirmed).toBe(true);
  expect(await recorded()).toMatchObject({ awarded_marks: 0, mark_scheme_detail: { type: "rubric", items: [] } });
  await expectNoAxeViolations(page);
});
