import { expect, test } from "@playwright/test";
import { ADMIN_EMAIL, expectNoAxeViolations, fillSignIn, openArea, screenshot, signIn } from "./helpers";

const DEMO_TIMETABLE = "Whole school, 2025–26";

/**
 * A OneRoster 1.1 bundle as a school information system exports it (users.csv, classes.csv and
 * enrollments.csv given as three files), with names of its own so that no other spec meets them.
 */
function oneRosterBundle(tag: string) {
  const stamp = "2026-09-01T08:00:00.000Z";
  const users = [
    "sourcedId,status,dateLastModified,enabledUser,orgSourcedIds,role,username,userIds,givenName,familyName,middleName,identifier,email,sms,phone,agentSourcedIds,grades,password",
    `t-${tag},,${stamp},true,org-1,teacher,nkemi.${tag},,Nkemi,Adeyemi,,T9,nkemi.${tag}@northfield.example,,,,,`,
    `s1-${tag},,${stamp},true,org-1,student,lena.${tag},,Lena,Fischer,,S91,lena.${tag}@northfield.example,,,,9,`,
    `s2-${tag},,${stamp},true,org-1,student,omar.${tag},,Omar,Haddad,,S92,omar.${tag}@northfield.example,,,,9,`,
    `p-${tag},,${stamp},true,org-1,parent,parent.${tag},,Pat,Fischer,,P1,pat.${tag}@example.org,,,,,`,
  ];
  const classes = [
    "sourcedId,status,dateLastModified,title,grades,courseSourcedId,classCode,classType,location,schoolSourcedId,termSourcedIds,subjects,subjectCodes,periods",
    `c-${tag},,${stamp},Year 9 Chemistry,9,crs-ch,9C/Ch-${tag},scheduled,Lab 2,org-1,term-1,Chemistry,CH,2`,
  ];
  const enrollments = [
    "sourcedId,status,dateLastModified,classSourcedId,schoolSourcedId,userSourcedId,role,primary,beginDate,endDate",
    `e1-${tag},,${stamp},c-${tag},org-1,t-${tag},teacher,true,2026-09-01,2027-07-20`,
    `e2-${tag},,${stamp},c-${tag},org-1,s1-${tag},student,false,2026-09-01,2027-07-20`,
    `e3-${tag},,${stamp},c-${tag},org-1,s2-${tag},student,false,2026-09-01,2027-07-20`,
  ];
  const file = (name: string, lines: string[]) => ({ name, mimeType: "text/csv", buffer: Buffer.from(`${lines.join("\r\n")}\r\n`) });
  return [file("users.csv", users), file("classes.csv", classes), file("enrollments.csv", enrollments)];
}

/**
 * The first-use journey of a new school admin: import the school's OneRoster bundle, see the
 * new class and people, give the new teacher a lesson and a temporary password; the teacher signs in
 * with it, chooses their own, and finds the lesson on their timetable.
 */
test("a new admin imports a OneRoster bundle, resets a teacher's password, and the teacher sees their timetable", async ({ browser, page }, testInfo) => {
  test.setTimeout(180_000);
  const tag = Date.now().toString(36);
  const className = `9C/Ch-${tag}`;
  await signIn(page, ADMIN_EMAIL);

  // People → Import class list: three CSV files of a OneRoster bundle, previewed before anything is written.
  await openArea(page, "People");
  await page.getByRole("link", { name: "Import class list" }).click();
  await page.getByLabel("Roster file").setInputFiles(oneRosterBundle(tag));
  const preview = page.locator("#import-preview");
  await expect(preview.getByRole("heading", { name: "3. Check the preview" })).toBeVisible({ timeout: 30_000 });
  await expect(preview.getByText("Nothing will be deleted or deactivated")).toBeVisible();
  await expect(preview.getByRole("table", { name: "People created by the import" }).getByRole("row")).toHaveCount(4);
  await expect(preview.getByRole("table", { name: /Rows the import skips/ })).toContainText("Pat Fischer");
  await expect(preview.getByRole("table", { name: "Classes in the import" })).toContainText(className);
  await expectNoAxeViolations(page, "the import preview");
  await screenshot(page, testInfo, "first-use-import-preview", true);
  await preview.getByRole("button", { name: "Import 3 people" }).click();
  await expect(page.getByRole("status").filter({ hasText: "3 created" })).toBeVisible({ timeout: 30_000 });

  // The class and its people are there.
  await page.getByRole("link", { name: "See the classes" }).click();
  await page.getByRole("link", { name: className }).click();
  await expect(page.getByRole("heading", { level: 1, name: className })).toBeVisible();
  await expect(page.getByText("Lena Fischer")).toBeVisible();
  await expect(page.getByText("Omar Haddad")).toBeVisible();

  await openArea(page, "People");
  await page.getByLabel("Search").fill(`nkemi.${tag}`);
  const row = page.getByRole("row", { name: /Nkemi Adeyemi/ });
  await expect(row).toContainText("Teacher");
  await expect(row).toContainText("No password yet");

  // A lesson for the new class and teacher in the school's timetable.
  await openArea(page, "Timetables");
  await page.getByRole("link", { name: DEMO_TIMETABLE }).click();
  await page.getByRole("button", { name: "Add a lesson on Wednesday, period 2" }).click();
  const lesson = page.getByRole("dialog", { name: "Add a lesson" });
  await lesson.getByLabel("Class").selectOption({ label: className });
  await lesson.getByLabel("Teacher").selectOption({ label: "Nkemi Adeyemi" });
  await lesson.getByLabel("Room").fill("Lab 2");
  await lesson.getByRole("button", { name: "Add lesson" }).click();
  await expect(page.getByText("Lesson added on Wednesday, period 2.")).toBeVisible();

  // Her temporary password, shown once.
  await openArea(page, "People");
  await page.getByLabel("Search").fill(`nkemi.${tag}`);
  await page.getByRole("row", { name: /Nkemi Adeyemi/ }).getByRole("link", { name: /Nkemi Adeyemi/ }).click();
  await page.getByRole("button", { name: "Create a temporary password" }).click();
  const temporary = await page.getByRole("textbox", { name: "Temporary password" }).inputValue();
  expect(temporary).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);

  // The teacher, on her own machine: the temporary password, then one of her own, then her week.
  const teacherContext = await browser.newContext();
  const teacher = await teacherContext.newPage();
  await teacher.goto("/signin");
  await fillSignIn(teacher, `nkemi.${tag}@northfield.example`, temporary);
  await expect(teacher).toHaveURL(/\/choose-password$/);
  await teacher.getByLabel("Temporary password").fill(temporary);
  await teacher.getByLabel("New password", { exact: true }).fill("nkemi's own passphrase");
  await teacher.getByLabel("New password again").fill("nkemi's own passphrase");
  await teacher.getByRole("button", { name: "Save and continue" }).click();
  await expect(teacher.getByRole("navigation", { name: "Main" })).toBeVisible();
  await openArea(teacher, "Timetables");
  const week = teacher.getByRole("table");
  await expect(week).toContainText(className);
  await expect(week).toContainText("Lab 2");
  // Read-only: a teacher cannot add or change lessons.
  await expect(teacher.getByRole("button", { name: /^Add a lesson/ })).toHaveCount(0);
  await expectNoAxeViolations(teacher, "the teacher's own timetable");
  await teacher.setViewportSize({ width: 820, height: 1180 });
  await expect(week).toContainText(className);
  await screenshot(teacher, testInfo, "first-use-teacher-timetable", true);
  await teacherContext.close();
});
