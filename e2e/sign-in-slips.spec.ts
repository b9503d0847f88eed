import { expect, test } from "@playwright/test";
import { pdfTextPages } from "../tests/support/pdf-text";
import { ADMIN_EMAIL, expectNoAxeViolations, fillSignIn, mutate, screenshot, signIn } from "./helpers";

/**
 * Sign-in slips (issue 33, item 5): an admin prints the slips of a class whose students have no password
 * yet, reads who is on them, and a student signs in from their slip and chooses their own password.
 */
test("an admin prints a class's sign-in slips; a student signs in from a slip and chooses a password", async ({ browser, page }, testInfo) => {
  test.setTimeout(180_000);
  const stamp = Date.now();
  await signIn(page, ADMIN_EMAIL);
  const schoolClass = await mutate<{ id: string; name: string }>(page, "classes.create", { name: `Slips ${stamp}` });
  const students = [
    { full_name: "Łukasz Wójcik", email: `lukasz.${stamp}@northfield.example` },
    { full_name: "Дмитрий Иванов", email: `dmitri.${stamp}@northfield.example` },
  ];
  for (const student of students) await mutate(page, "people.add", { ...student, role: "student", class_ids: [schoolClass.id] });

  // From the class's page: the class is chosen, and the dialog says how many slips it prints.
  await page.goto(`/classes/${schoolClass.id}`);
  await page.getByRole("button", { name: "Sign-in slips" }).click();
  const dialog = page.getByRole("dialog", { name: "Sign-in slips" });
  await expect(dialog.getByLabel("Class", { exact: true })).toHaveValue(schoolClass.id);
  await expect(dialog.getByText("The PDF will have 2 slips, ten to a page, sorted by class and surname.")).toBeVisible();
  // Asking for everyone's new passwords says whose it replaces (nobody here has one yet: no warning).
  await dialog.getByLabel("Also people who already have a password: give them new ones").check();
  await expect(dialog.getByText(/This replaces the passwords/)).toHaveCount(0);
  await dialog.getByLabel("Also people who already have a password: give them new ones").uncheck();
  await expectNoAxeViolations(page, "the sign-in slips dialog");
  await screenshot(page, testInfo, "sign-in-slips-dialog");

  const downloading = page.waitForEvent("download");
  await dialog.getByRole("button", { name: "Download slips" }).click();
  const download = await downloading;
  expect(download.suggestedFilename()).toBe("sign-in-slips.pdf");
  const pdf = new Uint8Array(await download.createReadStream().then(async (stream) => Buffer.concat(await stream.toArray())));
  await expect(dialog).toBeHidden();
  await expect(page.getByText("sign-in-slips.pdf is downloading: 2 slips.")).toBeVisible();

  // The slips, read back from the PDF: names as written, sorted by surname (Wójcik, then Иванов), a password each.
  const lines = (await pdfTextPages(pdf))[0]!.split("\n").filter((line) => line.trim() !== "");
  const nameLines = lines.filter((line) => students.some((student) => student.full_name === line));
  expect(nameLines).toEqual(["Łukasz Wójcik", "Дмитрий Иванов"]);
  const slip = lines.slice(lines.indexOf("Łukasz Wójcik"));
  expect(slip[1]).toBe(schoolClass.name);
  expect(slip).toContain(`or email: ${students[0]!.email}`);
  const username = slip.find((line) => line.startsWith("Username: "))!.slice("Username: ".length);
  const password = slip[slip.indexOf("Temporary password:") + 1]!;
  expect(password).toMatch(/^[a-z2-9]{4}-[a-z2-9]{4}-[a-z2-9]{4}$/);
  expect(lines).toContain("You will choose your own password when you first sign in.");

  // Printed again, nobody is left without a password: nothing to download.
  await page.getByRole("button", { name: "Sign-in slips" }).click();
  await expect(dialog.getByText("Everyone chosen has a password already (2 people).")).toBeVisible();
  await expect(dialog.getByRole("button", { name: "Download slips" })).toHaveCount(0);
  await dialog.getByRole("button", { name: "Close" }).click();

  // On People, a person ticked in the list is a choice of its own; new passwords for people who have one say so.
  await page.goto("/people");
  await page.getByLabel("Search").fill(`dmitri.${stamp}`);
  await page.getByRole("checkbox", { name: "Tick Дмитрий Иванов for sign-in slips" }).check();
  await page.getByRole("button", { name: "Sign-in slips (1 ticked)" }).click();
  await expect(dialog.getByRole("radio", { name: "1 person ticked" })).toBeChecked();
  await expect(dialog.getByText("Everyone chosen has a password already (1 person).")).toBeVisible();
  await dialog.getByLabel("Also people who already have a password: give them new ones").check();
  await expect(dialog.getByText("This replaces the passwords of 1 person")).toBeVisible();
  await expect(dialog.getByText("The PDF will have 1 slip, ten to a page, sorted by class and surname.")).toBeVisible();
  await expectNoAxeViolations(page, "the sign-in slips dialog for people ticked");
  await screenshot(page, testInfo, "sign-in-slips-ticked");
  await dialog.getByRole("button", { name: "Cancel" }).click();

  // Łukasz signs in from his slip with its username, on a tablet: asked to choose his own password, then in.
  const studentContext = await browser.newContext({ viewport: { width: 820, height: 1180 } });
  const student = await studentContext.newPage();
  await student.goto("/signin");
  await fillSignIn(student, username, password);
  await expect(student).toHaveURL(/\/choose-password$/);
  await expect(student.getByRole("heading", { level: 1, name: "Choose your password" })).toBeVisible();
  // The form is filled once the page is interactive: typed before hydration, a field can be emptied again.
  await student.waitForLoadState("networkidle");
  await student.getByLabel("Temporary password").fill(password);
  await student.getByLabel("New password", { exact: true }).fill("lukasz chooses his own");
  await student.getByLabel("New password again").fill("lukasz chooses his own");
  await student.getByRole("button", { name: "Save and continue" }).click();
  await expect(student).toHaveURL(/\/timetables$/);
  await expect(student.getByRole("heading", { level: 1, name: "My timetable" })).toBeVisible();
  await screenshot(student, testInfo, "sign-in-slips-student-in");
  await studentContext.close();
});
