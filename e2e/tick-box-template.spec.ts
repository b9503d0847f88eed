import { expect, test } from "@playwright/test";
import { tickBoxPaper } from "../tests/support/tick-box-paper";
import { discardProposal, expectNoAxeViolations, screenshot, signIn } from "./helpers";
import { drawArea } from "./papers";

/**
 * Tick boxes in the template (issue 36, item 1): a teacher makes a question Multiple choice, finds the
 * boxes printed in its area, fixes one by hand, chooses the right answer and saves; a reload shows it all.
 */

test.use({ viewport: { width: 1366, height: 900 } });

test("a teacher finds a multiple-choice question's tick boxes, fixes one, chooses the right answer, and it persists", async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  const title = `E2E tick boxes ${Date.now().toString(36)}`;
  await signIn(page);
  await expect(page.getByRole("table", { name: "Exam templates" })).toBeVisible();

  await page.getByRole("button", { name: "New template" }).first().click();
  const dialog = page.getByRole("dialog", { name: "New template" });
  await dialog.getByLabel("Exam paper (PDF)").setInputFiles({ name: "science.pdf", mimeType: "application/pdf", buffer: Buffer.from((await tickBoxPaper()).pdf) });
  await dialog.getByLabel("Title").fill(title);
  await dialog.getByRole("button", { name: "Create and open" }).click();
  await expect(page).toHaveURL(/\/templates\/[0-9a-f-]{36}$/);
  await expect(page.locator("canvas.react-pdf__Page__canvas")).toHaveCount(2);
  // This spec builds the template by hand: what the editor read from the paper is discarded.
  await discardProposal(page);

  // Question 1, Multiple choice, one mark.
  await page.getByRole("button", { name: "Add question" }).click();
  await expect(page.getByRole("heading", { name: "Question 1" })).toBeVisible();
  await page.getByLabel("Max marks").fill("1");
  await page.getByLabel("Answer type").selectOption("multiple_choice");
  await expect(page.getByRole("group", { name: "Right answer" })).toContainText("find or draw its tick boxes");

  // Its area around the four boxes of question 1 on page 2 (55–80 mm down, 20–190 mm across).
  await drawArea(page, 2, [0.1, 55 / 297], [0.9, 80 / 297]);
  await expect(page.getByRole("heading", { name: "Selected area · page 2" })).toBeVisible();
  await page.getByRole("button", { name: "Find boxes" }).click();
  await expect(page.locator(".area--tick-box")).toHaveCount(4);
  await expect(page.getByRole("list", { name: "Tick boxes of this area" }).getByRole("listitem")).toHaveCount(4);
  await screenshot(page, testInfo, "tick-boxes-found");

  // Fixed by hand: D removed and drawn again where it is printed; C nudged with the keyboard and back.
  const boxD = page.getByRole("button", { name: /^Tick box D \(square\) of question 1, page 2$/ });
  const printedD = (await boxD.boundingBox())!;
  await page.getByRole("button", { name: "Remove box D" }).click();
  await expect(page.locator(".area--tick-box")).toHaveCount(3);
  await page.getByRole("button", { name: "Draw a box" }).click();
  await page.mouse.move(printedD.x - 1, printedD.y - 1);
  await page.mouse.down();
  await page.mouse.move(printedD.x + printedD.width + 1, printedD.y + printedD.height + 1, { steps: 5 });
  await page.mouse.up();
  await expect(page.locator(".area--tick-box")).toHaveCount(4);
  await expect(boxD).toBeVisible();
  const boxC = page.getByRole("button", { name: /^Tick box C \(square\) of question 1, page 2$/ });
  const before = (await boxC.boundingBox())!;
  await boxC.focus();
  await page.keyboard.press("ArrowRight");
  await expect.poll(async () => (await boxC.boundingBox())!.x).toBeGreaterThan(before.x + 2);
  await page.keyboard.press("ArrowLeft");
  await expect.poll(async () => Math.abs((await boxC.boundingBox())!.x - before.x)).toBeLessThan(1);
  // Resized by its corner, and back by the other way.
  const corner = (await boxC.locator('[data-handle="se"]').boundingBox())!;
  await page.mouse.move(corner.x + corner.width / 2, corner.y + corner.height / 2);
  await page.mouse.down();
  await page.mouse.move(corner.x + corner.width / 2 + 8, corner.y + corner.height / 2 + 8, { steps: 4 });
  await page.mouse.up();
  await expect.poll(async () => (await boxC.boundingBox())!.width).toBeGreaterThan(before.width + 4);
  const grown = (await boxC.locator('[data-handle="se"]').boundingBox())!;
  await page.mouse.move(grown.x + grown.width / 2, grown.y + grown.height / 2);
  await page.mouse.down();
  await page.mouse.move(grown.x + grown.width / 2 - 8, grown.y + grown.height / 2 - 8, { steps: 4 });
  await page.mouse.up();
  await expect.poll(async () => Math.abs((await boxC.boundingBox())!.width - before.width)).toBeLessThan(2);

  // The right answer: B (Carbon dioxide).
  const rightAnswer = page.getByRole("group", { name: "Right answer" });
  await expect(rightAnswer.getByRole("checkbox", { name: /^[A-Z]$/ })).toHaveCount(4);
  await rightAnswer.getByLabel("B", { exact: true }).check();
  await expect(page.getByLabel("More than one tick allowed")).not.toBeChecked();
  await screenshot(page, testInfo, "tick-boxes-right-answer");
  await expectNoAxeViolations(page, "template editor with tick boxes");

  await page.getByRole("button", { name: "Save", exact: true }).click();
  await expect(page.getByText("All changes saved")).toBeVisible();

  await page.reload();
  await expect(page.locator("canvas.react-pdf__Page__canvas")).toHaveCount(2);
  await expect(page.locator(".area--tick-box")).toHaveCount(4);
  await expect(page.getByRole("button", { name: /^Tick box D \(square\) of question 1, page 2$/ })).toBeVisible();
  await expect(page.getByLabel("Answer type")).toHaveValue("multiple_choice");
  await expect(page.getByRole("group", { name: "Right answer" }).getByLabel("B", { exact: true })).toBeChecked();
  await expect(page.getByRole("group", { name: "Right answer" }).getByLabel("A", { exact: true })).not.toBeChecked();

  // At a tablet's size too.
  await page.setViewportSize({ width: 1024, height: 768 });
  await page.getByRole("button", { name: /^Tick box B \(square\) of question 1, page 2$/ }).scrollIntoViewIfNeeded();
  await page.getByRole("button", { name: /^Tick box B \(square\) of question 1, page 2$/ }).click();
  await expect(page.getByRole("list", { name: "Tick boxes of this area" })).toBeVisible();
  await screenshot(page, testInfo, "tick-boxes-tablet");
  await expectNoAxeViolations(page, "template editor with tick boxes, tablet");
});
