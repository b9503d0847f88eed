import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { parse } from "csv-parse/sync";
import { discardProposal, followLink, screenshot, signIn, uploadTwoInOrderAndOneChosen } from "./helpers";
import { drawArea, questionButton, twoPagePaper } from "./papers";

/**
 * The whole teacher journey in one flow, on the production build: a paper uploaded as a PDF becomes a
 * template with two response areas and three questions, is marked ready, gets a batch for the teacher's
 * class, three scans (two in order, one for a chosen student), one script is marked by keyboard only,
 * and its marks are seen in the results and in the CSV. The detailed checks of each screen live in
 * templates.spec.ts and marking.spec.ts.
 */
test("a teacher goes from an uploaded paper to the CSV of its marks", async ({ page }, testInfo) => {
  test.setTimeout(150_000);
  const stamp = Date.now().toString(36);
  const title = `Journey paper ${stamp}`;
  await signIn(page);

  // 1. A template from an uploaded PDF: question 1 with parts 1a (3 marks) and 1b (2 marks), an area each.
  await page.getByRole("button", { name: "New template" }).first().click();
  const newTemplate = page.getByRole("dialog", { name: "New template" });
  await newTemplate.getByLabel("Exam paper (PDF)").setInputFiles({ name: "journey-paper.pdf", mimeType: "application/pdf", buffer: await twoPagePaper() });
  await newTemplate.getByLabel("Title").fill(title);
  await newTemplate.getByLabel("Subject").fill("Mathematics");
  await newTemplate.getByRole("button", { name: "Create and open" }).click();
  await expect(page).toHaveURL(/\/templates\/[0-9a-f-]{36}$/);
  await expect(page.locator("canvas.react-pdf__Page__canvas")).toHaveCount(2);
  // This journey builds the template by hand: what the editor read from the paper is discarded.
  await discardProposal(page);

  await page.getByRole("button", { name: "Add question" }).click();
  await page.getByRole("button", { name: "Add a part to question 1", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Question 1a" })).toBeVisible();
  await page.getByLabel("Max marks").fill("3");
  await drawArea(page, 1, [0.12, 0.17], [0.88, 0.45]);
  await page.getByRole("button", { name: "Add a part to question 1", exact: true }).click();
  await expect(page.getByRole("heading", { name: "Question 1b" })).toBeVisible();
  await page.getByLabel("Max marks").fill("2");
  await drawArea(page, 1, [0.12, 0.55], [0.88, 0.85]);
  await expect(page.locator(".area")).toHaveCount(2);
  await expect(questionButton(page, "1a")).toContainText("1 area");
  await expect(questionButton(page, "1b")).toContainText("1 area");
  await page.getByLabel("Status").selectOption("ready");
  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("All changes saved")).toBeVisible();

  // 2. A batch of that template for the teacher's class.
  await page.getByRole("link", { name: "Batches" }).click();
  await page.getByRole("button", { name: "New batch" }).first().click();
  const newBatch = page.getByRole("dialog", { name: "New marking batch" });
  await newBatch.getByLabel("Template").selectOption({ label: title });
  await expect(newBatch.getByText(/20 students will get a submission/)).toBeVisible();
  await newBatch.getByLabel("Title (optional)").fill(`Journey batch ${stamp}`);
  await newBatch.getByRole("button", { name: "Create batch" }).click();
  await expect(page).toHaveURL(/\/batches\/[0-9a-f-]{36}$/);
  const batchId = page.url().split("/").pop()!;

  // 3. Two scans matched in order, then one for a chosen student.
  const { first: student } = await uploadTwoInOrderAndOneChosen(page, 2);
  await expect(page.getByText("3 not marked")).toBeVisible();

  // 4. The first script, marked by keyboard only: 2 on 1a, 2 on 1b, each confirmed by Enter.
  await page.getByRole("link", { name: `Mark ${student}` }).click();
  await expect(page.getByRole("heading", { level: 1, name: student })).toBeVisible();
  const markInput = page.getByRole("textbox", { name: /^Mark out of/ });
  await expect(markInput).toBeFocused();
  for (const mark of ["2", "2"]) {
    await expect(markInput).toBeFocused();
    await page.keyboard.type(mark);
    await page.keyboard.press("Enter");
  }
  await expect(page.getByRole("heading", { level: 1 })).not.toHaveText(student);
  await screenshot(page, testInfo, "journey-marking");

  // 5. The results: that student complete with 4 of 5 marks.
  await page.goto(`/batches/${batchId}`);
  await expect(page.getByTestId("queue-row").filter({ hasText: student })).toContainText("Marked");
  await followLink(page, page.getByRole("link", { name: "Results", exact: true }), new RegExp(`/batches/${batchId}/results$`));
  const row = page.getByTestId("results-row").filter({ hasText: student });
  await expect(row.getByTestId("results-total")).toHaveText("4");
  await expect(row.getByTestId("results-percent")).toHaveText("80%");
  await screenshot(page, testInfo, "journey-results", true);

  // 6. The teacher's CSV: the school's columns, a column per question label, the student's marks, total and percentage, one row per submission.
  const downloading = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download results (CSV)" }).click();
  const [header, ...rows]: string[][] = parse(fs.readFileSync(await (await downloading).path(), "utf8"), { bom: true });
  expect(header).toEqual(["School ID", "Surname", "First name", "Class", "State", "Total", "Max", "Percentage", "1a", "1b", "Comments"]);
  const cells = rows.find((row) => `${row[2]} ${row[1]}` === student)!;
  expect(cells.slice(4, 10)).toEqual(["marked", "4", "5", "80", "2", "2"]);
  expect(rows).toHaveLength(20);
});
