import { expect, test } from "@playwright/test";
import { DEMO_PASSWORD, STUDENT_EMAIL, expectNoAxeViolations, followLink, screenshot, signIn } from "./helpers";

test("a student starts at their timetable, is offered only their own pages, and is told the staff pages are for staff", async ({ page }, testInfo) => {
  await signIn(page, STUDENT_EMAIL, DEMO_PASSWORD, /\/timetables$/);
  await expect(page.getByRole("heading", { level: 1, name: "My timetable" })).toBeVisible();
  const nav = page.getByRole("navigation", { name: "Main" });
  await expect(nav.getByRole("link")).toHaveText(["My work", "Timetables", "Settings"]);
  await screenshot(page, testInfo, "student-timetable");

  // A link to a staff page (a teacher's batch, a template, the classes) explains instead of a staff screen.
  for (const path of ["/batches", "/templates/00000000-0000-4000-8000-000000000000", "/classes"]) {
    await page.goto(path);
    await expect(page.getByRole("heading", { level: 2, name: "For your school’s staff" })).toBeVisible();
    await expect(page.getByText("As a student, you have your timetable and your settings here.")).toBeVisible();
    await expect(page.getByRole("button", { name: /New (batch|template)/ })).toHaveCount(0);
  }
  await expectNoAxeViolations(page);
  await screenshot(page, testInfo, "student-staff-only");
  await followLink(page, page.getByRole("link", { name: "Go to my timetable" }), /\/timetables$/);
  await expect(page.getByRole("heading", { level: 1, name: "My timetable" })).toBeVisible();

  // The wordmark and the front door lead to the timetable too.
  await page.goto("/settings");
  await followLink(page, page.getByRole("link", { name: "Markbook", exact: true }), /\/timetables$/);
  await page.goto("/");
  await expect(page).toHaveURL(/\/timetables$/);
});

test("staff keep their pages: a teacher starts at templates with templates, batches and classes in the navigation", async ({ page }) => {
  await signIn(page);
  await expect(page.getByRole("navigation", { name: "Main" }).getByRole("link")).toHaveText(["Templates", "Batches", "Timetables", "Classes", "Settings"]);
  await page.goto("/batches");
  await expect(page.getByRole("heading", { level: 1, name: "Batches" })).toBeVisible();
  await expect(page.getByText("For your school’s staff")).toHaveCount(0);
});
