import { type Page, expect, test } from "@playwright/test";
import { ADMIN_EMAIL, expectNoAxeViolations, openArea, screenshot, signIn } from "./helpers";

const DEMO_TIMETABLE = "Whole school, 2025–26";

/** The page does not scroll sideways (a wide week scrolls inside its own frame). */
async function expectNoHorizontalOverflow(page: Page, screen: string) {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  expect(scrollWidth, `${screen}: the page scrolls sideways`).toBeLessThanOrEqual(clientWidth);
}

/** Signs out through the shell's button. */
async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/signin/);
}

/** As the admin, turns the demo timetable on or off from the timetables list. */
async function setDemoTimetableActive(page: Page, active: boolean) {
  await signIn(page, ADMIN_EMAIL);
  await page.goto("/timetables");
  await page.getByRole("button", { name: `${active ? "Activate" : "Deactivate"} ${DEMO_TIMETABLE}` }).click();
  await expect(page.getByRole("button", { name: `${active ? "Deactivate" : "Activate"} ${DEMO_TIMETABLE}` })).toBeVisible();
  await signOut(page);
}

test("the demo teacher sees their own week at /timetables, read-only, at desktop and tablet width", async ({ page }, testInfo) => {
  test.setTimeout(90_000);
  await signIn(page);
  await openArea(page, "Timetables");
  await expect(page.getByRole("heading", { level: 1, name: "My timetable" })).toBeVisible();

  // Sarah Mitchell teaches 10A Mathematics: ten lessons a week in room M1, and no one else's.
  const week = page.getByRole("table", { name: "Your lessons by day and period" });
  await expect(week).toBeVisible();
  await expect(page.getByText(`10 lessons a week, from ${DEMO_TIMETABLE}.`)).toBeVisible();
  await expect(week.locator(".lesson")).toHaveCount(10);
  await expect(week.getByText("10A Mathematics")).toHaveCount(10);
  await expect(week.getByText("10B Mathematics")).toHaveCount(0);
  await expect(week.getByText("Room M1")).toHaveCount(10);
  const mondayFirst = week.getByRole("row", { name: /Period 1/ }).getByRole("cell").first();
  await expect(mondayFirst).toContainText("10A Mathematics");
  await expect(mondayFirst).toContainText("Sarah Mitchell");
  // Read-only: nothing in the grid is a control.
  await expect(week.getByRole("button")).toHaveCount(0);
  await expect(page.getByRole("button", { name: /Add a lesson/ })).toHaveCount(0);

  await expectNoAxeViolations(page, "/timetables as a teacher");
  await screenshot(page, testInfo, "my-timetable", true);

  await page.setViewportSize({ width: 768, height: 1024 });
  await expect(week).toBeVisible();
  await expectNoHorizontalOverflow(page, "my timetable at 768 px");
  await expectNoAxeViolations(page, "/timetables as a teacher at 768 px");
  await screenshot(page, testInfo, "tablet-my-timetable", true);
});

test("with no active timetable, the teacher is told why the week is empty and what to do", async ({ page }, testInfo) => {
  test.setTimeout(120_000);
  await setDemoTimetableActive(page, false);
  try {
    await signIn(page);
    await page.goto("/timetables");
    await expect(page.getByRole("heading", { level: 2, name: "No lessons on your timetable yet" })).toBeVisible();
    await expect(page.getByText(/ask your school's Markbook admin/)).toBeVisible();
    await expect(page.getByRole("main").getByRole("link", { name: "Classes" })).toBeVisible();
    await expectNoAxeViolations(page, "/timetables as a teacher without lessons");
    await screenshot(page, testInfo, "my-timetable-empty");
    await signOut(page);
  } finally {
    await setDemoTimetableActive(page, true);
  }
});

test("a department head who teaches keeps the timetables list and sees their own lessons below it", async ({ page }) => {
  await signIn(page, "head@northfield.example");
  await page.goto("/timetables");
  await expect(page.getByRole("heading", { level: 1, name: "Timetables" })).toBeVisible();
  await expect(page.getByRole("table", { name: /Timetables/ })).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: "My lessons" })).toBeVisible();
  const week = page.getByRole("table", { name: "Your lessons by day and period" });
  await expect(week.getByText("11A Physics").first()).toBeVisible();
  await expect(week.getByText("10A Mathematics")).toHaveCount(0);
  await expectNoAxeViolations(page, "/timetables as a department head who teaches");
});
