import { expect, test, type Page, type TestInfo } from "@playwright/test";
import { ADMIN_EMAIL, openArea, signIn } from "./helpers";

const DEMO_TIMETABLE = "Whole school, 2025–26";

/** A screenshot of the admin screens, kept with the run's artifacts under test-results/screenshots/. */
async function screenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  await page.evaluate(() => window.scrollTo(0, 0));
  const path = `test-results/screenshots/${name}.png`;
  await page.screenshot({ path, fullPage: true });
  await testInfo.attach(name, { path, contentType: "image/png" });
}

test.describe("the school admin", () => {
  test("adds a lesson, is told about a clash, adds a student to a class, and manages speech API keys", async ({ page }, testInfo) => {
    test.setTimeout(90_000);
    await signIn(page, ADMIN_EMAIL);

    // The demo timetable's week.
    await openArea(page, "Timetables");
    await expect(page.getByRole("heading", { level: 1, name: "Timetables" })).toBeVisible();
    await page.getByRole("link", { name: DEMO_TIMETABLE }).click();
    await expect(page.getByRole("heading", { level: 1, name: DEMO_TIMETABLE })).toBeVisible();
    const grid = page.getByRole("table");
    await expect(grid.getByRole("columnheader", { name: "Friday" })).toBeVisible();
    await expect(grid.getByRole("button", { name: /^Edit 10A Mathematics, Monday period 1, Sarah Mitchell, room M1$/ })).toBeVisible();

    // A new lesson in an empty slot (Thursday, period 4): the period's usual times are filled in.
    await grid.getByRole("button", { name: "Add a lesson on Thursday, period 4" }).click();
    const dialog = page.getByRole("dialog", { name: "Add a lesson" });
    await expect(dialog).toBeVisible();
    await expect(dialog.getByLabel("Starts")).toHaveValue("12:10");
    await expect(dialog.getByLabel("Ends")).toHaveValue("13:10");
    // End before start is caught at the field.
    await dialog.getByLabel("Ends").fill("12:00");
    await dialog.getByRole("button", { name: "Add lesson" }).click();
    await expect(dialog.getByText("The lesson must end after it starts.")).toBeVisible();
    await dialog.getByLabel("Ends").fill("13:10");
    await dialog.getByLabel("Class").selectOption({ label: "11A Physics" });
    await dialog.getByLabel("Teacher").selectOption({ label: "David Okafor" });
    await dialog.getByLabel("Room").fill("S1");
    await dialog.getByRole("button", { name: "Add lesson" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByText("Lesson added on Thursday, period 4.")).toBeVisible();
    await expect(grid.getByRole("button", { name: "Edit 11A Physics, Thursday period 4, David Okafor, room S1" })).toBeVisible();

    // The same teacher in the same period, in another room: the server refuses and names the clash.
    await grid.getByRole("button", { name: "Add a lesson on Thursday, period 4" }).click();
    await expect(dialog).toBeVisible();
    await dialog.getByLabel("Class").selectOption({ label: "10A Mathematics" });
    await dialog.getByLabel("Teacher").selectOption({ label: "David Okafor" });
    await dialog.getByLabel("Room").fill("M9");
    await dialog.getByRole("button", { name: "Add lesson" }).click();
    const clash = dialog.getByRole("alert").filter({ hasText: "This lesson clashes with another one" });
    await expect(clash).toBeVisible();
    await expect(clash).toContainText("Teacher David Okafor is already booked on Thursday period 4");
    await expect(clash).toContainText("11A Physics");
    await expect(dialog.getByLabel("Teacher")).toHaveAttribute("aria-invalid", "true");
    await screenshot(page, testInfo, "timetable-clash");
    // The same room instead: named as a room clash.
    await dialog.getByLabel("Teacher").selectOption({ label: "James Patel" });
    await dialog.getByLabel("Room").fill("S1");
    await dialog.getByRole("button", { name: "Add lesson" }).click();
    await expect(dialog.getByRole("alert").filter({ hasText: "Room S1 is already booked on Thursday period 4" })).toBeVisible();
    await dialog.getByRole("button", { name: "Cancel" }).click();
    await expect(dialog).toBeHidden();
    await expect(grid.getByRole("button", { name: /^Edit 10A Mathematics, Thursday period 4/ })).toHaveCount(0);
    await screenshot(page, testInfo, "timetable-grid");

    // Editing a lesson in place, then deleting it (confirmed in the dialog).
    await grid.getByRole("button", { name: "Edit 11A Physics, Thursday period 4, David Okafor, room S1" }).click();
    const edit = page.getByRole("dialog", { name: "Edit lesson" });
    await expect(edit.getByLabel("Room")).toHaveValue("S1");
    await edit.getByLabel("Room").fill("Lab 2");
    await edit.getByRole("button", { name: "Save lesson" }).click();
    await expect(edit).toBeHidden();
    const edited = grid.getByRole("button", { name: "Edit 11A Physics, Thursday period 4, David Okafor, room Lab 2" });
    await edited.click();
    await edit.getByRole("button", { name: "Delete lesson" }).click();
    await edit.getByRole("button", { name: "Yes, delete the lesson" }).click();
    await expect(edit).toBeHidden();
    await expect(page.getByText("Lesson on Thursday, period 4 deleted.")).toBeVisible();
    await expect(edited).toHaveCount(0);

    // A class: add a student of another class and see them listed.
    await openArea(page, "Classes");
    await expect(page.getByRole("heading", { level: 1, name: "Classes" })).toBeVisible();
    await expect(page.getByText("3 classes in your school")).toBeVisible();
    await page.getByRole("link", { name: "10A Mathematics" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "10A Mathematics" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Students (20)" })).toBeVisible();
    const students = page.getByRole("table", { name: "Students of 10A Mathematics" });
    await expect(students.getByRole("rowheader", { name: "Poppy Singh" })).toHaveCount(0);
    await page.getByLabel("Search students").fill("poppy");
    await expect(page.getByLabel("Student", { exact: true })).toHaveValue(/.+/);
    await page.getByRole("button", { name: "Add to class" }).click();
    await expect(page.getByText("Poppy Singh was added to 10A Mathematics.")).toBeVisible();
    await expect(students.getByRole("rowheader", { name: "Poppy Singh" })).toBeVisible();
    await expect(page.getByRole("heading", { name: "Students (21)" })).toBeVisible();
    await screenshot(page, testInfo, "class-page");
    // Removing is confirmed first, and leaves the enrollment inactive ("removed"), not deleted.
    await students.getByRole("button", { name: "Remove Poppy Singh from the class" }).click();
    const removeDialog = page.getByRole("dialog", { name: "Remove this student from the class?" });
    await removeDialog.getByRole("button", { name: "Remove from class" }).click();
    await expect(removeDialog).toBeHidden();
    await expect(students.getByRole("rowheader", { name: "Poppy Singh" })).toHaveCount(0);
    await expect(page.getByRole("heading", { name: "Students (20)" })).toBeVisible();
    await page.getByLabel("Also show students who were removed").check();
    await expect(students.getByRole("row", { name: /Poppy Singh/ })).toContainText("Removed");

    // Speech API keys: created, shown once, listed, revoked.
    await openArea(page, "Settings");
    const keysCard = page.getByRole("region", { name: "Speech API keys" });
    await expect(keysCard).toBeVisible();
    await keysCard.getByLabel("Key name").fill("Lesson recorder");
    await keysCard.getByRole("button", { name: "Create key" }).click();
    await expect(keysCard.getByText("Copy your new key now")).toBeVisible();
    const keyField = keysCard.getByLabel("Speech API key “Lesson recorder”");
    await expect(keyField).toHaveValue(/\S{20,}/);
    const keysTable = keysCard.getByRole("table", { name: "Speech API keys" });
    const row = keysTable.getByRole("row", { name: /Lesson recorder/ });
    await expect(row).toContainText("Never");
    await expect(row).toContainText("Active");
    await screenshot(page, testInfo, "settings-speech-keys");
    await keysCard.getByRole("button", { name: "I have copied it, hide the key" }).click();
    await expect(keyField).toHaveCount(0);
    await row.getByRole("button", { name: "Revoke Lesson recorder" }).click();
    const confirm = page.getByRole("dialog", { name: "Revoke this key?" });
    await confirm.getByRole("button", { name: "Revoke key" }).click();
    await expect(confirm).toBeHidden();
    await expect(keysCard.getByText("Key “Lesson recorder” was revoked.")).toBeVisible();
    await expect(row).toContainText("Revoked");
    await expect(row.getByRole("button", { name: "Revoke Lesson recorder" })).toHaveCount(0);
  });
});

test.describe("the timetables list", () => {
  test("creates, renames, activates and deletes a timetable, with filters", async ({ page }, testInfo) => {
    await signIn(page, ADMIN_EMAIL);
    await page.goto("/timetables");
    const list = page.getByRole("table", { name: "Timetables, newest first" });
    await expect(list.getByRole("row", { name: /Whole school, 2025–26/ })).toContainText("Active");

    await page.getByRole("button", { name: "New timetable" }).click();
    const dialog = page.getByRole("dialog", { name: "New timetable" });
    await dialog.getByRole("button", { name: "Create timetable" }).click();
    await expect(dialog.getByText("Give the timetable a name")).toBeVisible();
    await dialog.getByLabel("Name").fill("Mock exams");
    await dialog.getByLabel("Type").selectOption({ label: "Exams" });
    await dialog.getByLabel("First day (optional)").fill("2026-06-01");
    await dialog.getByLabel("Last day (optional)").fill("2026-05-01");
    await dialog.getByRole("button", { name: "Create timetable" }).click();
    await expect(dialog.getByText("The last day must not be before the first day.")).toBeVisible();
    await dialog.getByLabel("Last day (optional)").fill("2026-06-12");
    await dialog.getByRole("button", { name: "Create timetable" }).click();
    await expect(dialog).toBeHidden();
    // Newest first, and inactive until activated.
    await expect(list.getByRole("row").nth(1)).toContainText("Mock exams");
    await expect(list.getByRole("row", { name: /Mock exams/ })).toContainText("Inactive");

    await page.getByRole("button", { name: "Rename Mock exams" }).click();
    const rename = page.getByRole("dialog", { name: "Rename timetable" });
    await rename.getByLabel("Name").fill("Summer mocks");
    await rename.getByRole("button", { name: "Rename" }).click();
    await expect(rename).toBeHidden();
    await page.getByRole("button", { name: "Activate Summer mocks" }).click();
    await expect(list.getByRole("row", { name: /Summer mocks/ })).toContainText("Active");
    // Another kind (exams): the whole-school timetable stays active.
    await expect(list.getByRole("row", { name: /Whole school, 2025–26/ })).toContainText("Active");

    await page.getByLabel("Type").selectOption({ label: "Exams" });
    await expect(list.getByRole("row")).toHaveCount(2);
    await page.getByLabel("Type").selectOption({ label: "Any type" });
    await page.getByLabel("State").selectOption({ label: "Inactive only" });
    await expect(page.getByRole("heading", { name: "No timetables match these filters" })).toBeVisible();
    await page.getByLabel("State").selectOption({ label: "Active and inactive" });
    await screenshot(page, testInfo, "timetables-list");

    await page.getByRole("button", { name: "Delete Summer mocks" }).click();
    const confirm = page.getByRole("dialog", { name: "Delete this timetable?" });
    await confirm.getByRole("button", { name: "Delete timetable" }).click();
    await expect(confirm).toBeHidden();
    await expect(list.getByRole("row", { name: /Summer mocks/ })).toHaveCount(0);
  });
});

test.describe("a teacher", () => {
  test("sees the timetable and classes read-only, and no speech API keys", async ({ page, browser }) => {
    test.setTimeout(60_000); // two signed-in browsers
    // The demo timetable's address, as an admin would share it.
    const adminPage = await browser.newPage();
    await signIn(adminPage, ADMIN_EMAIL);
    await adminPage.goto("/timetables");
    const timetableHref = await adminPage.getByRole("link", { name: DEMO_TIMETABLE }).getAttribute("href");
    await adminPage.close();

    await signIn(page);
    await page.goto("/timetables");
    await expect(page.getByRole("heading", { level: 1, name: "My timetable" })).toBeVisible();
    await page.goto(timetableHref!);
    await expect(page.getByRole("heading", { level: 1, name: DEMO_TIMETABLE })).toBeVisible();
    await expect(page.getByText("You can view this timetable.")).toBeVisible();
    await expect(page.getByRole("table").getByText("10A Mathematics").first()).toBeVisible();
    await expect(page.getByRole("button", { name: /^(Add a lesson|Edit )/ })).toHaveCount(0);
    await page.goto("/timetables/00000000-0000-4000-8000-000000000000");
    await expect(page.getByRole("heading", { name: "Timetable not found" })).toBeVisible();
    await page.goto("/classes");
    await page.getByRole("link", { name: "10A Mathematics" }).click();
    await expect(page.getByRole("table", { name: "Students of 10A Mathematics" }).getByRole("row")).not.toHaveCount(0);
    await expect(page.getByRole("button", { name: "Add to class" })).toHaveCount(0);
    await expect(page.getByRole("button", { name: /^Remove / })).toHaveCount(0);
    await page.goto("/settings");
    await expect(page.getByRole("heading", { name: "Personal access tokens" })).toBeVisible();
    await expect(page.getByRole("region", { name: "Speech API keys" })).toHaveCount(0);
  });
});
