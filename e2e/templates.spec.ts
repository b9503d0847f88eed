import fs from "node:fs";
import { expect, test, type Page, type TestInfo } from "@playwright/test";
import { discardProposal, expectNoAxeViolations, mutate, signIn, templateWithOnePart } from "./helpers";
import { drawArea, questionButton, twoPagePaper } from "./papers";

async function shot(page: Page, testInfo: TestInfo, name: string) {
  fs.mkdirSync("test-results/screenshots", { recursive: true });
  const path = `test-results/screenshots/${name}.png`;
  await page.screenshot({ path });
  await testInfo.attach(name, { path, contentType: "image/png" });
}

test("a teacher uploads a paper, draws areas and questions, saves, marks it ready, and it all persists", async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  const title = `E2E mock paper ${Date.now().toString(36)}`;
  await signIn(page);
  await expect(page.getByRole("table", { name: "Exam templates" })).toBeVisible();
  await shot(page, testInfo, "templates-list");

  // Create from an uploaded PDF.
  await page.getByRole("button", { name: "New template" }).first().click();
  const dialog = page.getByRole("dialog", { name: "New template" });
  await expect(dialog).toBeVisible();
  await dialog.getByLabel("Exam paper (PDF)").setInputFiles({ name: "e2e-mock-paper.pdf", mimeType: "application/pdf", buffer: await twoPagePaper() });
  await expect(dialog.getByLabel("Title")).toHaveValue("e2e-mock-paper");
  await dialog.getByLabel("Title").fill(title);
  await dialog.getByLabel("Subject").fill("Mathematics");
  await shot(page, testInfo, "templates-new-dialog");
  await dialog.getByRole("button", { name: "Create and open" }).click();

  await expect(page).toHaveURL(/\/templates\/[0-9a-f-]{36}$/);
  await expect(page.getByRole("heading", { level: 1 })).toContainText(title);
  await expect(page.locator("canvas.react-pdf__Page__canvas")).toHaveCount(2);
  await expect(page.getByText("2 pages ·")).toBeVisible();
  // This spec builds the template by hand: what the editor read from the paper is discarded.
  await discardProposal(page);

  // Question 1 with parts 1a and 1b.
  await page.getByRole("button", { name: "Add question" }).click();
  await expect(page.getByRole("heading", { name: "Question 1" })).toBeVisible();
  await page.getByRole("button", { name: "Add a part to question 1", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Question 1a" })).toBeVisible();
  await page.getByLabel("Max marks").fill("3");
  await page.getByLabel("Answer type").selectOption("numeric");
  await page.getByLabel("Mark scheme").fill("M1 common denominator; A1 7/8");
  await page.getByRole("button", { name: "Add a part to question 1", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Question 1b" })).toBeVisible();
  await page.getByLabel("Max marks").fill("2");
  await page.getByLabel("Specification reference").fill("8300.A4");

  // An area for each part: 1b is selected, so its area goes first on page 1's lower half.
  await drawArea(page, 1, [0.12, 0.55], [0.88, 0.85]);
  await expect(page.getByRole("heading", { name: "Selected area · page 1" })).toBeVisible();
  await questionButton(page, "1a").click();
  await drawArea(page, 1, [0.12, 0.17], [0.88, 0.45]);
  await expect(page.locator(".area")).toHaveCount(2);
  // Resize by a handle, then move by dragging the area itself.
  const selectedArea = page.locator(".area.area--selected");
  const drawn = (await selectedArea.boundingBox())!;
  const handle = (await selectedArea.locator('[data-handle="se"]').boundingBox())!;
  await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2);
  await page.mouse.down();
  await page.mouse.move(handle.x + handle.width / 2, handle.y + handle.height / 2 - 30, { steps: 4 });
  await page.mouse.up();
  const resized = (await selectedArea.boundingBox())!;
  expect(resized.height).toBeLessThan(drawn.height - 20);
  await page.mouse.move(resized.x + resized.width / 2, resized.y + resized.height / 2);
  await page.mouse.down();
  await page.mouse.move(resized.x + resized.width / 2, resized.y + resized.height / 2 + 20, { steps: 4 });
  await page.mouse.up();
  expect((await selectedArea.boundingBox())!.y).toBeGreaterThan(resized.y + 10);
  await expect(questionButton(page, "1a")).toContainText("1 area");
  await expect(questionButton(page, "1b")).toContainText("1 area");
  // Selecting a question highlights its area.
  await questionButton(page, "1b").click();
  await expect(page.locator(".area.area--linked")).toHaveCount(1);

  // Keyboard: Alt+↓ moves 1a below 1b and Alt+↑ brings it back; Delete removes a selected area.
  await questionButton(page, "1a").focus();
  await page.keyboard.press("Alt+ArrowDown");
  await expect(page.locator(".question-row__label")).toHaveText(["1", "1b", "1a"]);
  await page.keyboard.press("Alt+ArrowUp");
  await expect(page.locator(".question-row__label")).toHaveText(["1", "1a", "1b"]);
  // …and by drag and drop among siblings.
  const questionRow = (label: string) => page.locator(".question-row").filter({ has: questionButton(page, label) });
  await questionRow("1b").dragTo(questionRow("1a"));
  await expect(page.locator(".question-row__label")).toHaveText(["1", "1b", "1a"]);
  await questionRow("1a").dragTo(questionRow("1b"));
  await expect(page.locator(".question-row__label")).toHaveText(["1", "1a", "1b"]);
  await drawArea(page, 2, [0.2, 0.2], [0.5, 0.3]);
  await expect(page.locator(".area")).toHaveCount(3);
  await page.keyboard.press("Delete");
  await expect(page.locator(".area")).toHaveCount(2);
  await questionButton(page, "1b").click();

  await expect(page.getByText("Unsaved changes")).toBeVisible();
  await page.getByLabel("Status").selectOption("ready");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("All changes saved")).toBeVisible();

  // "Update curriculum links" (once "Sync to graph") shows the counts in plain words.
  await page.getByRole("button", { name: "Update curriculum links" }).click();
  await expect(page.getByText("Curriculum links updated")).toBeVisible();
  await expect(page.getByText(/1 question, 2 parts, 2 answer areas/)).toBeVisible();

  // Everything is still there after a reload.
  await page.reload();
  await expect(page.locator("canvas.react-pdf__Page__canvas")).toHaveCount(2);
  await expect(page.locator(".area")).toHaveCount(2);
  await expect(page.locator(".question-row")).toHaveCount(3);
  await expect(page.getByLabel("Status")).toHaveValue("ready");
  await expect(questionButton(page, "1a")).toContainText("3 marks · 1 area");
  await expect(questionButton(page, "1b")).toContainText("2 marks · 1 area");
  await questionButton(page, "1a").click();
  await expect(page.getByLabel("Mark scheme")).toHaveValue("M1 common denominator; A1 7/8");
  await expect(page.getByLabel("Answer type")).toHaveValue("numeric");
  await expect(page.getByText("All changes saved")).toBeVisible();
  // The part's area, selected: handles, the area inspector, the question highlighted.
  await page.locator(".area.area--linked").click();
  await expect(page.getByRole("heading", { name: "Selected area · page 1" })).toBeVisible();
  await page.locator(".paper__scroll").evaluate((element) => element.scrollTo(0, 0));
  await shot(page, testInfo, "template-editor");

  // The list shows it as ready.
  await page.getByRole("link", { name: "← Templates" }).click();
  const row = page.getByRole("row").filter({ hasText: title });
  await expect(row).toContainText("Ready");
  await expect(row).toContainText("Mathematics");
  await shot(page, testInfo, "templates-list-after");
});

test("a template can start from a catalogue paper", async ({ page }) => {
  await signIn(page);
  await page.getByRole("button", { name: "New template" }).first().click();
  const dialog = page.getByRole("dialog", { name: "New template" });
  await dialog.getByLabel("Catalogue paper").check();
  await dialog.getByLabel("Paper from the catalogue").selectOption({ index: 1 });
  await expect(dialog.getByLabel("Title")).not.toHaveValue("");
  await dialog.getByRole("button", { name: "Create and open" }).click();
  await expect(page).toHaveURL(/\/templates\/[0-9a-f-]{36}$/);
  await expect(page.locator("canvas.react-pdf__Page__canvas")).toHaveCount(4);
  await expect(page.getByText("All changes saved")).toBeVisible();
  // Ready to mark: the paper's questions, marks and areas come with it.
  await expect(page.locator(".question-row__label")).toHaveText(["1", "1a", "1b", "2", "3", "3a", "3b", "3c", "4"]);
  await expect(page.getByText(/4 pages · 7 markable questions · 16 marks · \d+ areas/)).toBeVisible();
  await expect(page.getByLabel("Status")).toHaveValue("ready");
  await expect(questionButton(page, "3b")).toContainText("3 marks · 1 area");
});

/** A fresh template over the two-page paper, made through the API, opened in the editor. */
async function openBlankTemplate(page: Page, title: string): Promise<string> {
  const upload = await page.request.post("/api/exam/files", { multipart: { file: { name: "paper.pdf", mimeType: "application/pdf", buffer: await twoPagePaper() } } });
  expect(upload.status()).toBe(201);
  const file = await upload.json();
  const template = await mutate<{ id: string }>(page, "exam.templates.create", { title, source_file_id: file.id, page_count: file.page_count });
  await page.goto(`/templates/${template.id}`);
  await expect(page.locator("canvas.react-pdf__Page__canvas")).toHaveCount(2);
  await discardProposal(page);
  return template.id;
}

test("each box drawn with no question selected is a new question; Add question puts the focus in its label", async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  await signIn(page);
  await openBlankTemplate(page, `Boxes ${Date.now().toString(36)}`);
  await expect(page.locator(".question-tree__empty")).toContainText("each box you draw becomes a new question");
  await expect(page.getByText("Each box you draw on a page becomes a new question.")).toBeVisible();

  await drawArea(page, 1, [0.1, 0.1], [0.9, 0.3]);
  await drawArea(page, 1, [0.1, 0.4], [0.9, 0.6]);
  await expect(page.locator(".question-row__label")).toHaveText(["1", "2"]);
  await expect(questionButton(page, "1")).toContainText("1 area");
  await expect(questionButton(page, "2")).toContainText("1 area");

  // With a question selected, a box is that question's area, as the hint says; Esc goes back to new questions.
  await questionButton(page, "1").click();
  await expect(page.getByText("Boxes you draw become areas of question 1.")).toBeVisible();
  // Page 2's top in view: the page is taller than the paper's frame.
  await page.locator('.page-overlay[data-page="2"]').evaluate((overlay) => overlay.scrollIntoView({ block: "start" }));
  await drawArea(page, 2, [0.1, 0.05], [0.9, 0.2]);
  await expect(questionButton(page, "1")).toContainText("2 areas");
  await expect(page.locator(".question-row")).toHaveCount(2);
  await page.getByRole("button", { name: "Draw new questions instead" }).click();
  await drawArea(page, 2, [0.1, 0.25], [0.9, 0.4]);
  await expect(page.locator(".question-row__label")).toHaveText(["1", "2", "3"]);

  await page.getByRole("button", { name: "Add question" }).click();
  await expect(page.getByRole("heading", { name: "Question 4" })).toBeVisible();
  await expect(page.getByLabel("Label")).toBeFocused();
  await page.keyboard.type("4 (extension)");
  await expect(questionButton(page, "4 \\(extension\\)")).toBeVisible();
  await shot(page, testInfo, "template-editor-boxes");
});

test("max marks: the field keeps what was typed, says the rule, and nothing is saved until it is a maximum", async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  await signIn(page);
  await openBlankTemplate(page, `Max marks ${Date.now().toString(36)}`);
  await page.getByRole("button", { name: "Add question" }).click();
  const maxMarks = page.getByLabel("Max marks");
  // A new question has no maximum until one is typed (issue 33, item 11).
  await expect(maxMarks).toHaveValue("");
  await expect(questionButton(page, "1")).toContainText("max needed");

  for (const typed of ["1e3", "-2", "0", "99999"]) {
    await maxMarks.fill(typed);
    await expect(maxMarks).toHaveValue(typed);
    await expect(maxMarks).toHaveAttribute("aria-invalid", "true");
    await expect(page.locator(".field__error")).toContainText(/Maximum marks must be (between 0\.5 and 500|a number such as 2 or 1\.5)/);
  }
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Question 1: maximum marks must be between 0.5 and 500. Correct it, then save.")).toBeVisible();
  await expect(page.getByText("Not saved", { exact: true })).toBeVisible();
  await expectNoAxeViolations(page, "template editor with a max marks error");
  await shot(page, testInfo, "template-editor-max-marks-error");

  await maxMarks.fill("2.50");
  await expect(maxMarks).toHaveValue("2.50");
  await expect(maxMarks).not.toHaveAttribute("aria-invalid", "true");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("All changes saved")).toBeVisible();
  await page.reload();
  await expect(questionButton(page, "1")).toContainText("2.5 marks");

  await page.setViewportSize({ width: 820, height: 1180 });
  await page.getByRole("button", { name: /^Questions/ }).click();
  await questionButton(page, "1").click();
  await maxMarks.fill("1e3");
  await expect(page.locator(".field__error")).toBeVisible();
  await expectNoAxeViolations(page, "template editor at tablet width");
  await shot(page, testInfo, "template-editor-max-marks-tablet");
});

test("Ready asks for every maximum, part labels follow their question, and a rubric over the maximum is warned about", async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  await signIn(page);
  const { template, questionId } = await templateWithOnePart(page, `Ready ${Date.now().toString(36)}`);
  // Question 1 is worth 5: items that can make 6 are allowed, and said.
  for (const body of [{ text: "Method", points: 3 }, { text: "Answer", points: 3 }, { text: "Slip", points: -1 }]) {
    expect((await page.request.post(`/api/exam/questions/${questionId}/rubric-items`, { data: body })).status()).toBe(201);
  }
  await page.goto(`/templates/${template.id}`);
  await questionButton(page, "1").click();
  await expect(page.getByText("The items add up to 6, more than the 5 marks question 1 is worth: a mark made of them stops at 5.")).toBeVisible();

  // A new question of the Ready template: no maximum, and Save says which question needs one.
  await page.getByRole("button", { name: "Add question" }).click();
  await expect(page.getByLabel("Max marks")).toHaveValue("");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("Question 2: maximum marks are required before the template is Ready. Type it, or keep the template as a Draft, then save.")).toBeVisible();
  await expectNoAxeViolations(page, "template editor asking for a maximum before Ready");
  await shot(page, testInfo, "template-editor-ready-needs-max");

  // Parts are labelled from their question, and follow it when it is relabelled.
  await page.getByRole("button", { name: "Add a part to question 2", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Question 2a" })).toBeVisible();
  await expect(page.getByText("Suggested from 2")).toBeVisible();
  await page.getByLabel("Max marks").fill("2");
  await page.getByRole("button", { name: "Add a part to question 2", exact: true }).click();
  await page.getByLabel("Max marks").fill("1");
  await questionButton(page, "2").click();
  await page.getByLabel("Label").fill("3");
  await expect(page.locator(".question-row__label")).toHaveText(["1", "3", "3a", "3b"]);
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("All changes saved")).toBeVisible();
});

test("unsaved work: leaving by a link asks first and names the changes; a reload offers the draft back", async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  await signIn(page);
  const templateId = await openBlankTemplate(page, `Drafts ${Date.now().toString(36)}`);
  await page.getByRole("button", { name: "Add question" }).click();
  await page.getByLabel("Max marks").fill("4");
  await expect(page.getByText("Unsaved changes")).toBeVisible();

  // The app's own link: a confirm that says what is not saved; cancelling stays in the editor.
  const asked: string[] = [];
  page.once("dialog", (dialog) => {
    asked.push(dialog.message());
    void dialog.dismiss();
  });
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Batches" }).click();
  await expect.poll(() => asked.length).toBe(1);
  expect(asked[0]).toMatch(/has changes that are not saved: 1 question added\./);
  await expect(page).toHaveURL(new RegExp(`/templates/${templateId}$`));

  // Leaving anyway (a reload: the browser's own "leave site?" is accepted), the draft is offered back.
  page.on("dialog", (dialog) => void dialog.accept());
  // The draft is written after a short pause in typing.
  await expect.poll(() => page.evaluate(() => Object.keys(window.localStorage).some((key) => key.startsWith("markbook:template-draft:")))).toBe(true);
  await page.reload();
  await expect(page.getByText("Unsaved changes from an earlier visit")).toBeVisible();
  await expect(page.getByText(/never saved: 1 question added\./)).toBeVisible();
  await expect(page.locator(".question-row")).toHaveCount(0);
  await expectNoAxeViolations(page, "template editor offering a draft");
  await shot(page, testInfo, "template-editor-draft-offer");
  await page.getByRole("button", { name: "Restore them" }).click();
  await expect(questionButton(page, "1")).toContainText("4 marks");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("All changes saved")).toBeVisible();

  // Saved: nothing is offered any more, and links leave without asking.
  await page.reload();
  await expect(questionButton(page, "1")).toContainText("4 marks");
  await expect(page.getByText("Unsaved changes from an earlier visit")).toBeHidden();
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Batches" }).click();
  await expect(page).toHaveURL(/\/batches$/);
});

test("once marks exist, saving explains the conflict and still saves mark-scheme edits", async ({ page }, testInfo) => {
  await signIn(page);
  // A template with one question, a batch, a scan and a mark, made through the API.
  const title = `Marked paper ${Date.now().toString(36)}`;
  const { template, questionId } = await templateWithOnePart(page, title);
  const batch = await mutate<{ id: string }>(page, "exam.batches.create", { template_id: template.id, title: "Conflict batch" });
  const scan = await page.request.post(`/api/exam/batches/${batch.id}/scans`, { multipart: { file: { name: "scan.pdf", mimeType: "application/pdf", buffer: await twoPagePaper() } } });
  expect(scan.status()).toBe(201);
  const submission = await scan.json();
  await mutate(page, "exam.marks.upsert", { mark_id: crypto.randomUUID(), body: { submission_id: submission.id, question_id: questionId, awarded_marks: 3 } });

  await page.goto(`/templates/${template.id}`);
  await expect(page.locator(".area")).toHaveCount(1);
  await page.getByLabel("Max marks").fill("6");
  await page.getByRole("button", { name: "Add question" }).click();
  // The template is Ready: the new question needs its maximum before the save is even sent.
  await page.getByLabel("Max marks").fill("2");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("The questions and areas were not saved: marks are already recorded")).toBeVisible();
  await expect(page.getByText("Not saved", { exact: true })).toBeVisible();
  await shot(page, testInfo, "template-editor-conflict");
  await page.getByRole("button", { name: /Save 1 mark-scheme change and the details/ }).click();
  await expect(page.getByText("All changes saved")).toBeVisible();
  await expect(page.locator(".question-row")).toHaveCount(1);
  await page.reload();
  await expect(questionButton(page, "1")).toContainText("6 marks · 1 area");
});
