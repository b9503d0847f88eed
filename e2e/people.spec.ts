import { expect, test } from "@playwright/test";
import { ADMIN_EMAIL, expectNoAxeViolations, fillSignIn, openArea, screenshot, signIn } from "./helpers";

/**
 * A school admin adds a teacher and gives them a temporary password; the teacher signs in with it, must
 * choose their own, and reaches the app; the admin deactivates them and their open session ends.
 */
test("an admin adds a teacher, resets the password, and deactivates them; the teacher chooses a password and is signed out", async ({ browser, page }, testInfo) => {
  // Seven axe runs and two browsers: about 1.5 min on a quiet machine, twice that on a busy one.
  test.setTimeout(240_000);
  const email = `priya.${Date.now()}@northfield.example`;
  await signIn(page, ADMIN_EMAIL);

  await openArea(page, "People");
  await expect(page.getByRole("heading", { level: 1, name: "People" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Import class list" })).toHaveAttribute("href", "/people/import");
  await expect(page.getByRole("table", { name: /People of your school/ })).toBeVisible();
  await expectNoAxeViolations(page, "/people");

  // Add a teacher: the form says what is wrong before asking the server.
  await page.getByRole("button", { name: "Add person" }).first().click();
  const dialog = page.getByRole("dialog", { name: "Add person" });
  await dialog.getByRole("button", { name: "Add person" }).click();
  await expect(dialog.getByText("Enter the person’s full name.")).toBeVisible();
  await dialog.getByLabel("Full name").fill("Priya Newton");
  await dialog.getByLabel("Email").fill(email);
  await dialog.getByLabel("Role").selectOption({ label: "Teacher" });
  await expectNoAxeViolations(page, "the Add person dialog");
  await dialog.getByRole("button", { name: "Add person" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByText("Priya Newton was added.")).toBeVisible();

  // The same email again is refused without saying whose it is.
  await page.getByRole("button", { name: "Add person" }).first().click();
  await dialog.getByLabel("Full name").fill("Priya Twin");
  await dialog.getByLabel("Email").fill(email);
  await dialog.getByRole("button", { name: "Add person" }).click();
  await expect(dialog.getByText("Someone already uses this email address")).toBeVisible();
  await dialog.getByRole("button", { name: "Cancel" }).click();

  // Found by search, with the chips that say she cannot sign in yet.
  await page.getByLabel("Search").fill("priya newton");
  const row = page.getByRole("row", { name: /Priya Newton/ });
  await expect(row).toContainText("Teacher");
  await expect(row).toContainText("No password yet");
  await screenshot(page, testInfo, "people-list");
  await row.getByRole("link", { name: /Priya Newton/ }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Priya Newton" })).toBeVisible();
  await expectNoAxeViolations(page, "a person's page");

  await page.getByRole("button", { name: "Create a temporary password" }).click();
  const secret = page.getByRole("textbox", { name: "Temporary password" });
  await expect(secret).toHaveValue(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
  const temporary = await secret.inputValue();
  await expect(page.getByText(/Give it to Priya Newton in person/)).toBeVisible();
  await expect(page.getByText("Must choose password")).toBeVisible();
  await screenshot(page, testInfo, "people-temporary-password");

  // The teacher, in a browser of their own (a tablet): signed in with the temporary password, sent to choose one.
  const teacherContext = await browser.newContext({ viewport: { width: 820, height: 1180 } });
  const teacher = await teacherContext.newPage();
  await teacher.goto("/signin");
  await fillSignIn(teacher, email, temporary);
  await expect(teacher).toHaveURL(/\/choose-password$/);
  await expect(teacher.getByRole("heading", { level: 1, name: "Choose your password" })).toBeVisible();
  await expectNoAxeViolations(teacher, "/choose-password at tablet width");
  await screenshot(teacher, testInfo, "people-choose-password");
  // The app stays closed until they have chosen.
  await teacher.goto("/templates");
  await expect(teacher).toHaveURL(/\/choose-password$/);
  await teacher.getByLabel("Temporary password").fill(temporary);
  await teacher.getByLabel("New password", { exact: true }).fill(temporary);
  await teacher.getByLabel("New password again").fill(temporary);
  await teacher.getByRole("button", { name: "Save and continue" }).click();
  await expect(teacher.getByText("Choose a password that differs from the temporary one.")).toBeVisible();
  await teacher.getByLabel("New password", { exact: true }).fill("priya chooses her own");
  await teacher.getByLabel("New password again").fill("priya chooses her own");
  await teacher.getByRole("button", { name: "Save and continue" }).click();
  await expect(teacher).toHaveURL(/\/templates$/);
  await expect(teacher.getByRole("navigation", { name: "Main" })).toBeVisible();
  // A teacher has no People entry.
  await expect(teacher.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "People" })).toHaveCount(0);

  // The admin deactivates her: the confirmation says what happens.
  await page.getByRole("button", { name: "Done, hide it" }).click();
  await page.getByRole("button", { name: "Deactivate" }).click();
  const confirm = page.getByRole("dialog", { name: "Deactivate Priya Newton?" });
  await expect(confirm).toContainText("They are signed out at once");
  await confirm.getByRole("button", { name: "Deactivate" }).click();
  await expect(page.getByText("Priya Newton is deactivated and signed out everywhere.")).toBeVisible();
  await expect(page.getByRole("button", { name: "Reactivate" })).toBeVisible();

  // Her open session has ended: the next page sends her to sign in, and her password no longer works.
  await teacher.reload();
  await expect(teacher).toHaveURL(/\/signin/);
  await fillSignIn(teacher, email, "priya chooses her own");
  await expect(teacher.getByText("Email, username or password is incorrect.")).toBeVisible();
  await teacherContext.close();

  // Tablet width: the list and a person's page still work and pass axe.
  await page.setViewportSize({ width: 820, height: 1180 });
  await page.goto("/people");
  await expect(page.getByRole("table", { name: /People of your school/ })).toBeVisible();
  await expectNoAxeViolations(page, "/people at tablet width");
  await screenshot(page, testInfo, "people-tablet");
  await page.getByLabel("Status").selectOption({ label: "Deactivated" });
  const deactivated = page.getByRole("row", { name: /Priya Newton/ });
  await expect(deactivated).toContainText("Deactivated");
  await deactivated.getByRole("link", { name: /Priya Newton/ }).click();
  await expect(page.getByRole("button", { name: "Reactivate" })).toBeVisible();
  await expectNoAxeViolations(page, "a deactivated person's page at tablet width");
  await screenshot(page, testInfo, "people-person-tablet", true);
});
