import fs from "node:fs";
import { expect, test, type Locator, type Page, type TestInfo } from "@playwright/test";
import { DEMO_PASSWORD, expectNoAxeViolations, mutate, signIn, templateWithOnePart } from "./helpers";
import { questionButton, twoPagePaper } from "./papers";

/**
 * The rubric editor in the template editor's question inspector (components/rubric/RubricEditor.tsx),
 * on question 2 of the demo paper, by keyboard: items are saved at once, kept across a reload, and read
 * only by a colleague; the third test deletes them again, so later specs mark the demo paper as seeded.
 * The last one re-scores a mark made of an item, on a template of its own.
 */

const DEMO_PAPER = "Mathematics Paper 1 (Non-calculator), June 2026 mock";
const COLLEAGUE_EMAIL = "teacher2@northfield.example";

async function shot(page: Page, testInfo: TestInfo, name: string, target?: Locator) {
  fs.mkdirSync("test-results/screenshots", { recursive: true });
  const path = `test-results/screenshots/${name}.png`;
  await (target ?? page).screenshot({ path });
  await testInfo.attach(name, { path, contentType: "image/png" });
}

/** Opens the demo paper's template with question 2 selected; answers its rubric section. */
async function openQuestion2(page: Page): Promise<Locator> {
  await page.goto("/templates");
  await page.getByRole("link", { name: DEMO_PAPER }).click();
  await expect(page.locator("canvas.react-pdf__Page__canvas").first()).toBeVisible();
  await questionButton(page, "2").click();
  await expect(page.getByRole("heading", { name: "Question 2", exact: true })).toBeVisible();
  return page.getByRole("region", { name: "Rubric" });
}

/** Each item's key, text and points as listed, e.g. "1 Answer 140 +3". */
async function listed(rubric: Locator): Promise<string[]> {
  const rows = rubric.getByRole("listitem");
  const texts: string[] = [];
  for (let i = 0; i < (await rows.count()); i++) {
    const row = rows.nth(i);
    const key = (await row.locator(".rubric-item__key kbd").textContent()) ?? "";
    const text = (await row.locator(".rubric-item__text").textContent()) ?? "";
    const points = ((await row.locator(".rubric-item__points").textContent()) ?? "").replace(/ marks?$/, "");
    texts.push(`${key} ${text} ${points}`);
  }
  return texts;
}

test.describe.serial("the rubric editor", () => {
  test("the owner adds, edits, reorders and deletes items by keyboard, and they persist", async ({ page }, testInfo) => {
    test.setTimeout(120_000);
    await signIn(page);

    // A question that exists only in the unsaved draft cannot have items yet.
    await page.goto("/templates");
    await page.getByRole("link", { name: DEMO_PAPER }).click();
    await expect(page.locator("canvas.react-pdf__Page__canvas").first()).toBeVisible();
    await page.getByRole("button", { name: "Add question" }).click();
    const draftQuestion = (await page.locator(".inspector h2").textContent())!.replace("Question ", "");
    await expect(page.getByRole("region", { name: "Rubric" })).toContainText("Save the template to add rubric items");
    await page.getByRole("region", { name: "Rubric" }).scrollIntoViewIfNeeded();
    await shot(page, testInfo, "rubric-unsaved-question", page.locator(".editor__side"));
    await page.getByRole("button", { name: `Delete question ${draftQuestion}` }).click();

    const rubric = await openQuestion2(page);
    await expect(rubric).toContainText("No rubric items yet");
    await rubric.scrollIntoViewIfNeeded();
    await shot(page, testInfo, "rubric-empty", page.locator(".editor__side"));

    // Three items, typed without the mouse: Enter adds and leaves the focus in Text for the next one.
    await rubric.getByRole("button", { name: "+ Add rubric item" }).focus();
    await page.keyboard.press("Enter");
    const form = rubric.getByRole("form", { name: "New rubric item for question 2" });
    await expect(form.getByLabel("Text")).toBeFocused();
    await page.keyboard.type("M1: 560 × 3/8 = 210 walk");
    await page.keyboard.press("Tab");
    await page.keyboard.type("1");
    await page.keyboard.press("Enter");
    await expect(rubric.getByRole("listitem")).toHaveCount(1);
    await expect(form.getByLabel("Text")).toBeFocused();
    await expect(form.getByLabel("Text")).toHaveValue("");

    await page.keyboard.type("A1: 140");
    await page.keyboard.press("Tab");
    await page.keyboard.type("2");
    await page.keyboard.press("Tab");
    await page.keyboard.type("NAB-GCSE-MATH-2025/R9");
    await page.keyboard.press("Tab");
    await page.keyboard.type("Right answer, well set out.");
    await page.keyboard.press("Tab");
    await expect(form.getByRole("button", { name: "Add item" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(rubric.getByRole("listitem")).toHaveCount(2);

    // A refusal is said next to the field it is about, and nothing is sent.
    await expect(form.getByLabel("Text")).toBeFocused();
    await page.keyboard.type("Arithmetic slip");
    await page.keyboard.press("Tab");
    await page.keyboard.type("-0.125");
    await page.keyboard.press("Enter");
    await expect(form.getByLabel("Points")).toHaveAccessibleDescription(/at most two decimals/);
    await expect(form.getByLabel("Points")).toBeFocused();
    await page.keyboard.press("ControlOrMeta+A");
    await page.keyboard.type("−1");
    await page.keyboard.press("Enter");
    await expect(rubric.getByRole("listitem")).toHaveCount(3);
    await expect(rubric.getByRole("status")).toContainText("Added “Arithmetic slip” (−1), key 3.");
    await shot(page, testInfo, "rubric-adding", page.locator(".editor__side"));
    await expectNoAxeViolations(page, "the template editor with a rubric and its add form");
    await page.keyboard.press("Escape");
    await expect(rubric.getByRole("button", { name: "+ Add rubric item" })).toBeFocused();
    expect(await listed(rubric)).toEqual(["1 M1: 560 × 3/8 = 210 walk +1", "2 A1: 140 +2", "3 Arithmetic slip −1"]);
    await expect(rubric.getByRole("listitem").nth(1)).toContainText("NAB-GCSE-MATH-2025/R9");
    await expect(rubric.getByRole("listitem").nth(1)).toContainText("Right answer, well set out.");

    // Edit the points of "A1: 140": the answer says how many marks were re-scored.
    await rubric.getByRole("button", { name: "Edit “A1: 140”" }).focus();
    await page.keyboard.press("Enter");
    const editForm = rubric.getByRole("form", { name: "Edit “A1: 140”" });
    await expect(editForm.getByLabel("Text")).toBeFocused();
    await expect(editForm).toContainText("A change of points re-scores the marks that use this item.");
    await shot(page, testInfo, "rubric-editing", page.locator(".editor__side"));
    await page.keyboard.press("Tab");
    await page.keyboard.type("3");
    await page.keyboard.press("Enter");
    await expect(rubric.getByRole("status")).toHaveText("“A1: 140” is now +3. No recorded marks used it, so none were re-scored.");
    await expect(rubric.getByRole("button", { name: "Edit “A1: 140”" })).toBeFocused();

    // Move "Arithmetic slip" to the top: the focus stays on its arrows as it goes.
    await rubric.getByRole("button", { name: "Move “Arithmetic slip” up" }).focus();
    await page.keyboard.press("Enter");
    await expect(rubric.getByRole("status")).toContainText("Moved “Arithmetic slip” to place 2 of 3, key 2.");
    await expect(rubric.getByRole("button", { name: "Move “Arithmetic slip” up" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(rubric.getByRole("status")).toContainText("place 1 of 3, key 1");
    await expect(rubric.getByRole("button", { name: "Move “Arithmetic slip” down" })).toBeFocused();
    expect(await listed(rubric)).toEqual(["1 Arithmetic slip −1", "2 M1: 560 × 3/8 = 210 walk +1", "3 A1: 140 +3"]);

    // Delete the method mark, confirmed; the confirmation says marks using it are re-scored.
    await rubric.getByRole("button", { name: "Delete “M1: 560 × 3/8 = 210 walk”" }).focus();
    await page.keyboard.press("Enter");
    const dialog = page.getByRole("dialog", { name: "Delete “M1: 560 × 3/8 = 210 walk”?" });
    await expect(dialog).toContainText("will be re-scored without it");
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
    await shot(page, testInfo, "rubric-delete-dialog");
    // Esc cancels: the dialog closes, the question stays selected, the focus goes back to Delete.
    await page.keyboard.press("Escape");
    await expect(dialog).toBeHidden();
    await expect(page.getByRole("heading", { name: "Question 2", exact: true })).toBeVisible();
    await expect(rubric.getByRole("button", { name: "Delete “M1: 560 × 3/8 = 210 walk”" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(dialog.getByRole("button", { name: "Cancel" })).toBeFocused();
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");
    await expect(dialog).toBeHidden();
    await expect(rubric.getByRole("status")).toContainText("Deleted “M1: 560 × 3/8 = 210 walk”.");
    await expect(rubric.getByRole("button", { name: "Edit “A1: 140”" })).toBeFocused();
    await shot(page, testInfo, "rubric-owner", page.locator(".editor__side"));

    // Saved as they were made: a reload shows them in their order.
    await page.reload();
    const reloaded = await openQuestion2(page);
    expect(await listed(reloaded)).toEqual(["1 Arithmetic slip −1", "2 A1: 140 +3"]);
    await expectNoAxeViolations(page, "the template editor with a rubric");
  });

  test("a colleague reads the rubric without controls", async ({ page }, testInfo) => {
    await signIn(page, COLLEAGUE_EMAIL, DEMO_PASSWORD);
    const rubric = await openQuestion2(page);
    expect(await listed(rubric)).toEqual(["1 Arithmetic slip −1", "2 A1: 140 +3"]);
    await expect(rubric).toContainText("Only the template’s owner can change this rubric.");
    await expect(rubric.getByRole("button")).toHaveCount(0);
    await rubric.scrollIntoViewIfNeeded();
    await shot(page, testInfo, "rubric-colleague", page.locator(".editor__side"));
    await expectNoAxeViolations(page, "a colleague's template with a rubric");
  });

  test("the owner deletes the items again, on a portrait tablet", async ({ page }, testInfo) => {
    await page.setViewportSize({ width: 820, height: 1180 });
    await signIn(page);
    await page.getByRole("link", { name: DEMO_PAPER }).click();
    await expect(page.locator("canvas.react-pdf__Page__canvas").first()).toBeVisible();
    await page.getByRole("button", { name: /^Questions/ }).click();
    await questionButton(page, "2").click();
    const rubric = page.getByRole("region", { name: "Rubric" });
    await rubric.getByRole("button", { name: "Edit “A1: 140”" }).click();
    await rubric.getByRole("form", { name: "Edit “A1: 140”" }).getByLabel("Points").fill("2.555");
    await rubric.getByRole("button", { name: "Save item" }).click();
    await expect(rubric.getByLabel("Points")).toHaveAccessibleDescription("Points can have at most two decimals.");
    await rubric.scrollIntoViewIfNeeded();
    await shot(page, testInfo, "rubric-tablet", rubric);
    await page.keyboard.press("Escape");
    for (const text of ["Arithmetic slip", "A1: 140"]) {
      await rubric.getByRole("button", { name: `Delete “${text}”` }).click();
      await page.getByRole("dialog").getByRole("button", { name: "Delete item" }).click();
      await expect(rubric.getByRole("listitem").filter({ hasText: text })).toHaveCount(0);
    }
    await expect(rubric).toContainText("No rubric items yet");
  });

  test("a change of points re-scores the marks made of the item, and the editor says how many", async ({ page }) => {
    await signIn(page);
    // A template of its own with one part, a batch, a scan and a mark made of one rubric item, through the API.
    const { template, questionId } = await templateWithOnePart(page, `Rubric re-score ${Date.now().toString(36)}`);
    const item = await mutate<{ id: string }>(page, "exam.rubric.create", { question_id: questionId, body: { text: "Correct answer", points: 2 } });
    const batch = await mutate<{ id: string }>(page, "exam.batches.create", { template_id: template.id, title: "Rubric batch" });
    const scan = await page.request.post(`/api/exam/batches/${batch.id}/scans`, { multipart: { file: { name: "scan.pdf", mimeType: "application/pdf", buffer: await twoPagePaper() } } });
    expect(scan.status()).toBe(201);
    const submission = await scan.json();
    const mark = await mutate<{ awarded_marks: number }>(page, "exam.marks.upsert", {
      mark_id: crypto.randomUUID(),
      body: { submission_id: submission.id, question_id: questionId, awarded_marks: 0, mark_scheme_detail: { type: "rubric", items: [item.id] } },
    });
    expect(mark.awarded_marks).toBe(2);

    await page.goto(`/templates/${template.id}`);
    const rubric = page.getByRole("region", { name: "Rubric" });
    await rubric.getByRole("button", { name: "Edit “Correct answer”" }).click();
    await rubric.getByLabel("Points").fill("3");
    await page.keyboard.press("Enter");
    await expect(rubric.getByRole("status")).toHaveText("“Correct answer” is now +3. Re-scored 1 mark.");

    await rubric.getByRole("button", { name: "Delete “Correct answer”" }).click();
    await page.getByRole("dialog").getByRole("button", { name: "Delete item" }).click();
    await expect(rubric.getByRole("status")).toHaveText("Deleted “Correct answer”. Re-scored 1 mark.");
    await expect(rubric.getByRole("listitem")).toHaveCount(0);
  });
});
