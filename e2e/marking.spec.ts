import fs from "node:fs";
import { expect, test } from "@playwright/test";
import { parse } from "csv-parse/sync";
import ExcelJS from "exceljs";
import { expectNoAxeViolations, followLink, screenshot, signIn, uploadTwoInOrderAndOneChosen } from "./helpers";

const DEMO_TEMPLATE = "Mathematics Paper 1 (Non-calculator), June 2026 mock";

test("a teacher creates a batch, uploads scans, marks a script by keyboard, sees the results and downloads the CSV", async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  await signIn(page);

  // The demo template's page count, read as the signed-in teacher through the REST path.
  const listed = (await (await page.request.get("/api/exam/templates")).json()) as { templates: { title: string; page_count: number; status: string }[] };
  const template = listed.templates.find((t) => t.title === DEMO_TEMPLATE && t.status === "ready")!;
  expect(template).toBeTruthy();

  // 1. New batch from the ready template for the teacher's class.
  await followLink(page, page.getByRole("link", { name: "Batches" }), /\/batches$/);
  await page.getByRole("button", { name: "New batch" }).first().click();
  const dialog = page.getByRole("dialog", { name: "New marking batch" });
  await dialog.getByLabel("Template").selectOption({ label: DEMO_TEMPLATE });
  await expect(dialog.getByText(/20 students will get a submission/)).toBeVisible();
  await screenshot(page, testInfo, "new-batch-dialog");
  const batchTitle = `Year 10 mock ${Date.now().toString(36)}`;
  await dialog.getByLabel("Title (optional)").fill(batchTitle);
  await dialog.getByRole("button", { name: "Create batch" }).click();
  await expect(page).toHaveURL(/\/batches\/[0-9a-f-]{36}$/);
  const batchId = page.url().split("/").pop()!;
  await expect(page.getByRole("heading", { level: 1, name: batchTitle })).toBeVisible();
  // Nothing uploaded yet: every student reads "No scan yet", never "Absent".
  await expect(page.getByText("20 no scan yet")).toBeVisible();
  await expect(page.getByTestId("queue-row").locator(".badge", { hasText: /^Absent$/ })).toHaveCount(0);

  // Results before any scan: an empty state that says what to do; an unknown batch: what went wrong.
  await followLink(page, page.getByRole("link", { name: "Results", exact: true }), new RegExp(`/batches/${batchId}/results$`));
  await expect(page.getByRole("heading", { level: 2, name: "No marks yet" })).toBeVisible();
  await followLink(page, page.getByRole("link", { name: "Upload the scans on the batch page" }), new RegExp(`/batches/${batchId}$`));
  await page.goto("/batches/00000000-0000-4000-8000-000000000000/results");
  const failed = page.getByRole("alert").filter({ hasText: "The results could not be loaded" });
  await expect(failed).toContainText("Batch not found");
  await expect(failed.getByRole("button", { name: "Try again" })).toBeVisible();
  await page.goto(`/batches/${batchId}`);

  // 2. Two scans in order, then one for a chosen student.
  const { first: firstStudent, chosen: lastStudent, files, uploads } = await uploadTwoInOrderAndOneChosen(page, template.page_count);

  // A file that is not a PDF is refused with the server's reason.
  await files.setInputFiles({ name: "notes.pdf", mimeType: "application/pdf", buffer: Buffer.from("just some text") });
  await expect(uploads.nth(3)).toContainText("Refused: The scan is not a PDF file");

  await expect(page.getByText("3 not marked")).toBeVisible();
  await expect(page.getByText("17 no scan yet")).toBeVisible();

  // A teacher marks a student without a scan absent, undoes it, and marks them again.
  const absentee = page.getByTestId("queue-row").filter({ hasText: "No scan yet" }).first();
  const absenteeName = (await absentee.getByRole("rowheader").innerText()).trim();
  const absenteeRow = page.getByTestId("queue-row").filter({ hasText: absenteeName });
  await absenteeRow.getByRole("button", { name: `Mark ${absenteeName} absent` }).click();
  await expect(absenteeRow.locator(".badge")).toHaveText("Absent");
  await expect(page.getByText("16 no scan yet")).toBeVisible();
  await expect(page.getByText("1 absent")).toBeVisible();
  await absenteeRow.getByRole("button", { name: `Undo: ${absenteeName} was not absent` }).click();
  await expect(absenteeRow.locator(".badge")).toHaveText("No scan yet");
  await absenteeRow.getByRole("button", { name: `Mark ${absenteeName} absent` }).click();
  await expect(absenteeRow.locator(".badge")).toHaveText("Absent");
  await screenshot(page, testInfo, "batch-page", true);
  await expectNoAxeViolations(page);

  // 3. Mark the first student's script by keyboard only.
  await followLink(page, page.getByRole("link", { name: `Mark ${firstStudent}` }), new RegExp(`/batches/${batchId}/mark\\?submission=`));
  await expect(page.getByRole("heading", { level: 1, name: firstStudent })).toBeVisible();
  await expect(page.locator("canvas.react-pdf__Page__canvas").first()).toBeVisible();
  await expect(page.locator("[data-current-area]")).toBeVisible();
  const markInput = page.getByRole("textbox", { name: /^Mark out of/ });
  await expect(markInput).toBeFocused();

  await page.keyboard.press("?");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page.getByRole("dialog", { name: "Keyboard shortcuts" })).toBeHidden();

  const questionButtons = page.getByRole("navigation", { name: "Questions" }).getByRole("button");
  const questionCount = await questionButtons.count();
  expect(questionCount).toBeGreaterThan(1);
  // j and k move between questions, even after a click has taken focus away from the mark.
  await page.getByRole("heading", { level: 2, name: /^Question/ }).click();
  await page.keyboard.press("j");
  await expect(questionButtons.nth(1)).toHaveAttribute("aria-current", "step");
  await page.keyboard.press("k");
  await expect(questionButtons.nth(0)).toHaveAttribute("aria-current", "step");
  await screenshot(page, testInfo, "marking-screen");
  await expectNoAxeViolations(page);

  for (let index = 0; index < questionCount; index++) {
    await expect(questionButtons.nth(index)).toHaveAttribute("aria-current", "step");
    await expect(markInput).toBeFocused();
    await page.keyboard.type("1");
    await page.keyboard.press("Enter");
  }
  // After the last question, the next student's script opens.
  await expect(page.getByRole("heading", { level: 1 })).not.toHaveText(firstStudent);
  await expect(markInput).toBeFocused();
  await expect(page.getByRole("status").filter({ hasText: "other mark" })).toHaveCount(0);
  await screenshot(page, testInfo, "marking-next-script");
  const secondStudent = (await page.getByRole("heading", { level: 1 }).textContent())!.trim();

  // A mark typed and not yet saved survives a reload, and is then saved.
  await page.keyboard.type("2");
  await page.reload();
  await expect(markInput).toHaveValue("2");
  await expect(page.getByRole("status").filter({ hasText: /^Saved$/ })).toBeVisible();

  // By question: Enter moves to the same question of the next script.
  await page.getByLabel("By question").check();
  await expect(page).toHaveURL(/mode=question/);
  await page.keyboard.press("]");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(lastStudent);
  await page.keyboard.press("[");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(secondStudent);
  await page.keyboard.press("j");
  await expect(questionButtons.nth(1)).toHaveAttribute("aria-current", "step");
  await page.keyboard.type("1");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(lastStudent);
  await expect(questionButtons.nth(1)).toHaveAttribute("aria-current", "step");

  // 4. The queue shows the script complete.
  await page.goto(`/batches/${batchId}`);
  const row = page.getByTestId("queue-row").filter({ hasText: firstStudent });
  await expect(row).toContainText("Marked");
  await expect(row).toContainText(`${questionCount} / ${questionCount}`);
  await expect(page.getByText("1 marked")).toBeVisible();
  await expect(page.getByTestId("queue-row").filter({ hasText: secondStudent })).toContainText(`2 / ${questionCount}`);

  // 5. Results, opened from the batch page: totals, absent rows, sorting, the three charts.
  const published = (await (await page.request.get(`/api/exam/batches/${batchId}/results`)).json()) as { questions: { max_marks: number | null }[] };
  const maxTotal = published.questions.reduce((sum, q) => sum + (q.max_marks ?? 0), 0);
  await followLink(page, page.getByRole("link", { name: "Results", exact: true }), new RegExp(`/batches/${batchId}/results$`));
  await expect(page.getByRole("heading", { level: 1, name: "Results" })).toBeVisible();
  const resultRows = page.getByTestId("results-row");
  await expect(resultRows).toHaveCount(20);
  const markedRow = resultRows.filter({ hasText: firstStudent });
  await expect(markedRow.getByTestId("results-total")).toHaveText(String(questionCount));
  await expect(markedRow.getByTestId("results-percent")).toHaveText(`${Math.round((questionCount / maxTotal) * 100)}%`);
  // Students without a script (no scan yet, or marked absent): a badge and blank cells, never a total of 0.
  await expect(resultRows.filter({ has: page.locator(".badge", { hasText: /^Absent$/ }) })).toHaveCount(1);
  await expect(resultRows.filter({ hasText: absenteeName }).locator(".badge")).toHaveText("Absent");
  const absentRows = resultRows.filter({ has: page.locator(".badge", { hasText: /^(Absent|No scan yet)$/ }) });
  await expect(absentRows).toHaveCount(17);
  for (const absentRow of await absentRows.all()) {
    await expect(absentRow.getByTestId("results-total")).toHaveText("");
    await expect(absentRow).not.toContainText(/\d/);
  }
  // A scanned script nobody has marked yet shows "not marked", not 0.
  await expect(resultRows.filter({ hasText: lastStudent }).getByTestId("results-total")).toHaveText(/not marked/);
  await expect(resultRows.filter({ hasText: secondStudent })).toContainText(`Being marked (2 of ${questionCount})`);
  const summary = page.getByRole("region", { name: "Summary" });
  await expect(summary).toContainText("Marked1 of 20");
  await expect(summary).toContainText("No scan yet16");
  await expect(summary).toContainText("Absent1");
  await expect(summary).toContainText("Not marked1");
  await expect(summary).toContainText("Being marked1");

  // Sort by total: highest first on the first click, then lowest first by keyboard; no score stays last.
  const totalHeader = page.getByRole("columnheader", { name: /^Total/ });
  await totalHeader.getByRole("button").click();
  await expect(totalHeader).toHaveAttribute("aria-sort", "descending");
  await expect(resultRows.nth(0)).toContainText(firstStudent);
  await expect(resultRows.nth(1)).toContainText(secondStudent);
  await expect(totalHeader.getByRole("button")).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(totalHeader).toHaveAttribute("aria-sort", "ascending");
  await expect(resultRows.nth(0)).toContainText(secondStudent);
  await expect(resultRows.nth(1)).toContainText(firstStudent);
  await expect(resultRows.nth(2)).toContainText(`${lastStudent}Not marked`);
  await expect(resultRows.last()).toContainText(/No scan yet|Absent/);
  await expect(page.getByRole("columnheader", { name: "Student", exact: true })).not.toHaveAttribute("aria-sort", /.+/);

  for (const title of ["Distribution of totals", "Mean percentage per question", "Mean percentage per specification point"]) {
    const chart = page.getByRole("figure", { name: title });
    await expect(chart).toBeVisible();
    await expect(chart.getByRole("img")).toBeVisible();
  }
  await expect(page.getByRole("figure", { name: "Distribution of totals" })).toContainText("Not counted: 17 students without a script and 2 scripts still being marked.");
  await expect(page.getByRole("figure", { name: "Mean percentage per question" })).toContainText("Lowest: question");
  await screenshot(page, testInfo, "results", true);
  await expectNoAxeViolations(page);
  await page.setViewportSize({ width: 768, height: 1024 });
  await expect(page.getByRole("figure", { name: "Mean percentage per question" })).toBeVisible();
  // Only the table scrolls sideways, never the page.
  expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(768);
  await screenshot(page, testInfo, "tablet-results", true);
  await page.setViewportSize({ width: 1280, height: 800 });

  // 6. The teacher's downloads, from the Results page, in the school's shape: the CSV read back as a
  // spreadsheet would (byte-order mark, columns), then the same table from the Excel workbook.
  const downloading = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download results (CSV)" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toMatch(new RegExp(`^${batchTitle} - \\d{4}-\\d{2}-\\d{2}\\.csv$`));
  const bytes = fs.readFileSync(await download.path());
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
  const [header, ...rows]: string[][] = parse(bytes.toString("utf8"), { bom: true });
  expect(header!.slice(0, 8)).toEqual(["School ID", "Surname", "First name", "Class", "State", "Total", "Max", "Percentage"]);
  expect(header!.at(-1)).toBe("Comments");
  expect(header!.length).toBe(questionCount + 9);
  const studentRow = rows.find((cells) => `${cells[2]} ${cells[1]}` === firstStudent)!;
  expect(studentRow).toBeTruthy();
  expect(studentRow[4]).toBe("marked");
  expect(Number(studentRow[5])).toBe(questionCount);
  expect(studentRow.slice(8, -1).every((cell) => Number(cell) === 1)).toBe(true);
  // A part-marked script has no total: sorting by total does not put it among low scores.
  const partRow = rows.find((cells) => `${cells[2]} ${cells[1]}` === secondStudent)!;
  expect(partRow.slice(4, 6)).toEqual(["incomplete", ""]);
  expect(rows.filter((cells) => cells[4] === "absent")).toHaveLength(1);
  expect(rows.length).toBe(20);

  const downloadingWorkbook = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download results (Excel)" }).click();
  const workbookDownload = await downloadingWorkbook;
  expect(workbookDownload.suggestedFilename()).toMatch(new RegExp(`^${batchTitle} - \\d{4}-\\d{2}-\\d{2}\\.xlsx$`));
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.readFile(await workbookDownload.path());
  const sheet = workbook.getWorksheet("Results")!;
  expect(sheet.rowCount).toBe(21);
  const sheetRow = rows.indexOf(studentRow) + 2;
  expect(sheet.getRow(sheetRow).getCell(6).value).toBe(questionCount);
  expect(sheet.getRow(sheetRow).getCell(5).value).toBe("marked");

  // 7. The batches list shows the batch with its progress.
  await page.goto("/batches");
  const listedRow = page.getByRole("row").filter({ hasText: batchTitle });
  await expect(listedRow).toContainText("1 marked");
  await expect(listedRow).toContainText("1 absent");
  await expect(listedRow).toContainText("Open");
  await expect(listedRow).toContainText(DEMO_TEMPLATE);
  await screenshot(page, testInfo, "batches-list");
  await expectNoAxeViolations(page);

  // 8. Archive (confirmed): the batch takes no more scans and leaves the default list.
  await page.goto(`/batches/${batchId}`);
  await page.getByRole("button", { name: "Archive batch" }).click();
  const confirm = page.getByRole("dialog", { name: "Archive this batch?" });
  await confirm.getByRole("button", { name: "Archive", exact: true }).click();
  await expect(confirm).toBeHidden();
  await expect(page.getByText("This batch is archived: it takes no more scans.")).toBeVisible();
  await expect(page.getByLabel("Choose PDF scans")).toBeDisabled();
  await page.goto("/batches");
  await expect(page.getByRole("row").filter({ hasText: batchTitle })).toHaveCount(0);
  await page.getByLabel("Show archived").check();
  await expect(page.getByRole("row").filter({ hasText: batchTitle })).toContainText("Archived");
});
