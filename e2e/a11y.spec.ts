import { expect, test } from "@playwright/test";
import { ADMIN_EMAIL, expectNoAxeViolations, signIn } from "./helpers";

test("sign-in page, empty and with an error, has no axe violations (WCAG 2.1 A/AA, best practices)", async ({ page }) => {
  await page.goto("/signin");
  await expectNoAxeViolations(page, "/signin");
  await page.getByLabel("Email").fill("teacher@northfield.example");
  await page.getByLabel("Password").fill("wrong");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByText("Email, username or password is incorrect.")).toBeVisible();
  await expectNoAxeViolations(page, "/signin with an error");
});

test("signed-in pages have no axe violations (WCAG 2.1 A/AA, best practices)", async ({ page }) => {
  // Several pages, an axe run each: ~18 s on a quiet machine, twice that on a busy one.
  test.setTimeout(90_000);
  await signIn(page);
  for (const path of ["/templates", "/batches", "/timetables"]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await expectNoAxeViolations(page, path);
  }

  await page.goto("/settings");
  await page.getByLabel("Token name").fill("Accessibility check");
  await page.getByRole("button", { name: "Create token" }).click();
  await expect(page.getByText("Copy your new token now")).toBeVisible();
  await expectNoAxeViolations(page, "/settings with a new token");

  await page.getByRole("button", { name: "Revoke Accessibility check" }).click();
  await expect(page.getByRole("dialog")).toBeVisible();
  await expectNoAxeViolations(page, "/settings with the revoke dialog");
  await page.getByRole("button", { name: "Revoke token" }).click();
  await expect(page.getByRole("dialog")).toBeHidden();

  await page.setViewportSize({ width: 820, height: 1180 });
  await page.goto("/templates");
  await expectNoAxeViolations(page, "/templates at tablet width");
});

test("the template editor, with a question and an area selected, has no axe violations", async ({ page }) => {
  test.setTimeout(90_000);
  await signIn(page);
  await page.getByRole("link", { name: "Mathematics Paper 1 (Non-calculator), June 2026 mock" }).click();
  await expect(page.locator("canvas.react-pdf__Page__canvas").first()).toBeVisible();
  await expect(page.locator(".area:not(.area--name-box)").first()).toBeVisible();
  await expectNoAxeViolations(page, "the template editor");
  await page.locator(".area:not(.area--name-box)").first().click();
  await expect(page.getByRole("heading", { name: /Selected area/ })).toBeVisible();
  await expectNoAxeViolations(page, "the template editor with an area selected");
  await page.goto("/templates");
  await page.getByRole("button", { name: "New template" }).click();
  await expect(page.getByRole("dialog", { name: "New template" })).toBeVisible();
  await expectNoAxeViolations(page, "the New template dialog");
});

test("the admin screens (timetables, a week grid with its lesson dialog, classes, speech API keys) have no axe violations", async ({ page }) => {
  test.setTimeout(60_000);
  await signIn(page, ADMIN_EMAIL);
  await page.goto("/timetables");
  await expect(page.getByRole("table", { name: /Timetables/ })).toBeVisible();
  await expectNoAxeViolations(page, "/timetables as a school admin");
  await page.getByRole("link", { name: "Whole school, 2025–26" }).click();
  await expect(page.getByRole("button", { name: /^Edit / }).first()).toBeVisible();
  await expectNoAxeViolations(page, "a timetable's week grid");
  await page.getByRole("button", { name: "Add a lesson on Tuesday, period 5" }).click();
  await expect(page.getByRole("dialog", { name: "Add a lesson" })).toBeVisible();
  await expectNoAxeViolations(page, "the lesson dialog");
  await page.goto("/classes");
  await expect(page.getByRole("link", { name: "10A Mathematics" })).toBeVisible();
  await expectNoAxeViolations(page, "/classes");
  await page.getByRole("link", { name: "10A Mathematics" }).click();
  await expect(page.getByRole("table", { name: "Students of 10A Mathematics" })).toBeVisible();
  await expectNoAxeViolations(page, "a class page");
  await page.goto("/settings");
  await expect(page.getByRole("region", { name: "Speech API keys" })).toBeVisible();
  await expect(page.getByRole("table", { name: "Speech models" })).toBeVisible();
  await expectNoAxeViolations(page, "/settings as a school admin");
});

test("the answers screen and the check screen of a batch (nothing read yet) have no axe violations", async ({ page }) => {
  test.setTimeout(60_000);
  await signIn(page);
  const { templates } = (await (await page.request.get("/api/exam/templates")).json()) as { templates: { id: string; title: string; status: string }[] };
  const template = templates.find((t) => t.status === "ready")!;
  const created = await page.request.post("/api/exam/batches", { data: { template_id: template.id, title: `Answers a11y ${Date.now().toString(36)}` } });
  expect(created.status()).toBe(201);
  const batchId = ((await created.json()) as { id: string }).id;
  await page.goto(`/batches/${batchId}/answers`);
  await expect(page.getByRole("heading", { level: 1, name: "Answers read from the scans" })).toBeVisible();
  await expect(page.getByRole("switch", { name: "Give confident blanks 0 automatically" })).toBeVisible();
  await expectNoAxeViolations(page, "the answers screen");
  await page.goto(`/batches/${batchId}/answers/check`);
  await expect(page.getByRole("heading", { name: "Every answer is decided" })).toBeVisible();
  await expectNoAxeViolations(page, "the check screen, nothing to check");
});
