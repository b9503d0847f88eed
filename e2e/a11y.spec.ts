import AxeBuilder from "@axe-core/playwright";
import { expect, test, type Page } from "@playwright/test";
import { signIn } from "./helpers";

/** axe-core rules for WCAG 2.1 A and AA plus its best practices (landmarks, heading order); a violation lists the rule and the offending elements. */
async function expectNoViolations(page: Page, context: string): Promise<void> {
  const results = await new AxeBuilder({ page }).withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"]).analyze();
  const summary = results.violations.map(
    (violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
  );
  expect(summary, `accessibility violations on ${context}`).toEqual([]);
}

test("sign-in page, empty and with an error, has no axe violations (WCAG 2.1 A/AA, best practices)", async ({ page }) => {
  await page.goto("/signin");
  await expectNoViolations(page, "/signin");
  await page.getByLabel("Email").fill("teacher@northfield.example");
  await page.getByLabel("Password").fill("wrong");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Email or password is incorrect.")).toBeVisible();
  await expectNoViolations(page, "/signin with an error");
});

test("signed-in pages have no axe violations (WCAG 2.1 A/AA, best practices)", async ({ page }) => {
  await signIn(page);
  for (const path of ["/templates", "/batches", "/timetables"]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expectNoViolations(page, path);
  }

  await page.goto("/settings");
  await page.getByLabel("Token name").fill("Accessibility check");
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByText("Copy your new token now")).toBeVisible();
  await expectNoViolations(page, "/settings with a new token");

  await page.getByRole("button", { name: "Revoke Accessibility check" }).click();
  await expect(page.getByRole("dialog")).toBeVisible();
  await expectNoViolations(page, "/settings with the revoke dialog");
  await page.getByRole("button", { name: "Revoke token" }).click();
  await expect(page.getByRole("dialog")).toBeHidden();

  await page.setViewportSize({ width: 820, height: 1180 });
  await page.goto("/templates");
  await expectNoViolations(page, "/templates at tablet width");
});

test("the template editor, with a question and an area selected, has no axe violations", async ({ page }) => {
  await signIn(page);
  await page.getByRole("link", { name: "Mathematics Paper 1 (Non-calculator), June 2026 mock" }).click();
  await expect(page.locator("canvas.react-pdf__Page__canvas").first()).toBeVisible();
  await expect(page.locator(".area").first()).toBeVisible();
  await expectNoViolations(page, "the template editor");
  await page.locator(".area").first().click();
  await expect(page.getByRole("heading", { name: /Selected area/ })).toBeVisible();
  await expectNoViolations(page, "the template editor with an area selected");
  await page.goto("/templates");
  await page.getByRole("button", { name: "New template" }).click();
  await expect(page.getByRole("dialog", { name: "New template" })).toBeVisible();
  await expectNoViolations(page, "the New template dialog");
});

test("the admin screens (timetables, a week grid with its lesson dialog, classes, speech API keys) have no axe violations", async ({ page }) => {
  test.setTimeout(60_000);
  await signIn(page, "admin@northfield.example");
  await page.goto("/timetables");
  await expect(page.getByRole("table", { name: /Timetables/ })).toBeVisible();
  await expectNoViolations(page, "/timetables as a school admin");
  await page.getByRole("link", { name: "Whole school, 2025–26" }).click();
  await expect(page.getByRole("button", { name: /^Edit / }).first()).toBeVisible();
  await expectNoViolations(page, "a timetable's week grid");
  await page.getByRole("button", { name: "Add a lesson on Tuesday, period 5" }).click();
  await expect(page.getByRole("dialog", { name: "Add a lesson" })).toBeVisible();
  await expectNoViolations(page, "the lesson dialog");
  await page.goto("/classes");
  await expect(page.getByRole("link", { name: "10A Mathematics" })).toBeVisible();
  await expectNoViolations(page, "/classes");
  await page.getByRole("link", { name: "10A Mathematics" }).click();
  await expect(page.getByRole("table", { name: "Students of 10A Mathematics" })).toBeVisible();
  await expectNoViolations(page, "a class page");
  await page.goto("/settings");
  await expect(page.getByRole("region", { name: "Speech API keys" })).toBeVisible();
  await expectNoViolations(page, "/settings as a school admin");
});
