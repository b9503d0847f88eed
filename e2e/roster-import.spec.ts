import path from "node:path";
import { expect, test } from "@playwright/test";
import { ADMIN_EMAIL, expectNoAxeViolations, screenshot, signIn } from "./helpers";

const BUNDLE = path.resolve("tests/fixtures/roster/oneroster-riverside.zip");

test.describe("roster import", () => {
  test("an admin imports a OneRoster bundle: preview with reasons, import, and the same bundle again changes nothing", async ({ page }, testInfo) => {
    test.setTimeout(120_000);
    await signIn(page, ADMIN_EMAIL);
    await page.goto("/people/import");
    await expect(page.getByRole("heading", { level: 1, name: "Import people" })).toBeVisible();
    await expectNoAxeViolations(page, "the roster import's first step");

    await page.getByLabel("Roster file").setInputFiles(BUNDLE);
    await expect(page.getByRole("heading", { name: "3. Check the preview" })).toBeVisible();
    const summary = page.getByRole("definition");
    await expect(summary.first()).toHaveText("9 people");
    await expect(page.getByText("Nothing will be deleted or deactivated")).toBeVisible();
    const created = page.getByRole("table", { name: "People created by the import" });
    await expect(created.getByRole("row", { name: /Chloé Dubois/ })).toContainText("10A/Ma, 10B/En");
    await expect(created.getByRole("row", { name: /Rachel Okafor/ })).toContainText("Administrator");
    const skipped = page.getByRole("table", { name: "Rows the import skips, with the reason" });
    await expect(skipped.getByRole("row", { name: /Nadia Haddad/ })).toContainText('unknown role "parent": Markbook has no parent accounts');
    await expect(skipped.getByRole("row", { name: /Gus Leaver/ })).toContainText("marked to be deleted in the school's system");
    await expect(page.getByRole("table", { name: "Classes in the import" }).getByRole("row", { name: /10A\/Ma/ })).toContainText("David Lindqvist");
    await expectNoAxeViolations(page, "the roster import's preview");
    await screenshot(page, testInfo, "roster-import-preview", true);

    await page.setViewportSize({ width: 768, height: 1024 });
    await expectNoAxeViolations(page, "the preview at tablet width");
    await screenshot(page, testInfo, "roster-import-preview-tablet");
    await page.setViewportSize({ width: 1280, height: 800 });

    await page.getByRole("button", { name: "Import 9 people" }).click();
    await expect(page.getByRole("heading", { name: "Imported" })).toBeVisible();
    await expect(page.getByText("9 created, 0 updated, 0 unchanged, 3 skipped")).toBeVisible();
    await expect(page.getByRole("link", { name: "See the people" })).toHaveAttribute("href", "/people");
    await expectNoAxeViolations(page, "the roster import's result");
    await screenshot(page, testInfo, "roster-import-done");

    // The classes page shows what was imported.
    await page.getByRole("link", { name: "See the classes" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "Classes" })).toBeVisible();
    await expect(page.getByRole("row", { name: /10A\/Ma/ })).toContainText("David Lindqvist");

    // The same bundle again: nothing to import.
    await page.goto("/people/import");
    await page.getByLabel("Roster file").setInputFiles(BUNDLE);
    await expect(page.getByRole("heading", { name: "3. Check the preview" })).toBeVisible();
    await expect(page.getByText("Everything in this file is already in Markbook: there is nothing to import.")).toBeVisible();
    await expect(page.getByText("9 people are already up to date")).toBeVisible();
    await expect(page.getByRole("button", { name: /^Import/ })).toHaveCount(0);
    await screenshot(page, testInfo, "roster-import-again");
  });

  test("a school export's CSV goes through the column screen, with sample values", async ({ page }) => {
    test.setTimeout(60_000);
    await signIn(page, ADMIN_EMAIL);
    await page.goto("/people/import");
    const csv = "Forename,Surname,Contact,Sets\nPia,Lund,pia.lund@e2e-csv.example.org,7X\n";
    await page.getByLabel("Roster file").setInputFiles({ name: "pupils.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await expect(page.getByRole("heading", { name: "2. Match the columns" })).toBeVisible();
    await expect(page.getByLabel("First name", { exact: true })).toHaveValue("Forename");
    await expect(page.getByLabel("Legal first name")).toHaveValue("");
    await expect(page.getByText("Choose the column with email addresses or usernames")).toBeVisible();
    await page.getByLabel("Email").selectOption("Contact");
    await expect(page.getByText("e.g. pia.lund@e2e-csv.example.org")).toBeVisible();
    await page.getByRole("checkbox", { name: "Sets" }).check();
    await expectNoAxeViolations(page, "the column screen");
    await page.getByRole("button", { name: "Preview import" }).click();
    await expect(page.getByRole("table", { name: "People created by the import" }).getByRole("row", { name: /Pia Lund/ })).toContainText("7X");
  });

  test("a SIMS-style export's names are recognised, and a name without its first part is warned about", async ({ page }, testInfo) => {
    test.setTimeout(60_000);
    await signIn(page, ADMIN_EMAIL);
    await page.goto("/people/import");
    const csv = "UPN,Legal Surname,Legal Forename,Preferred Name,Reg Group,Email\nA1,Łukasiewicz,Zoë,Zo,7X,zoe.l@e2e-sims.example.org\n";
    await page.getByLabel("Roster file").setInputFiles({ name: "sims.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await expect(page.getByRole("heading", { name: "2. Match the columns" })).toBeVisible();
    await expect(page.getByLabel("First name", { exact: true })).toHaveValue("Preferred Name");
    await expect(page.getByLabel("Legal first name")).toHaveValue("Legal Forename");
    await expect(page.getByLabel("Last name")).toHaveValue("Legal Surname");
    await page.getByLabel("First name", { exact: true }).selectOption("");
    await page.getByLabel("Legal first name").selectOption("");
    await page.getByRole("button", { name: "Preview import" }).click();
    await expect(page.getByText("First name: no column is chosen, so the 1 person would have a last name only.", { exact: false })).toBeVisible();
    await expectNoAxeViolations(page, "the preview with a warning");
    await screenshot(page, testInfo, "roster-import-name-warning");
  });

  test("the columns chosen for a CSV are remembered: the same file again goes straight to a preview that changes nothing", async ({ page }, testInfo) => {
    test.setTimeout(90_000);
    await signIn(page, ADMIN_EMAIL);
    await page.goto("/people/import");
    const csv = [
      "Forename,Known As,Surname,Email,Sets,Class teacher",
      "Alexander,Sasha,Petrov,sasha.petrov@e2e-memory.example.org,E2E-Memory,teacher2@northfield.example",
      "Margaret,Peggy,Olsen,peggy.olsen@e2e-memory.example.org,E2E-Memory,teacher2@northfield.example",
      "Robert,,Smith,robert.smith@e2e-memory.example.org,E2E-Memory,nobody@e2e-memory.example.org",
    ].join("\n");
    const file = { name: "pupils.csv", mimeType: "text/csv", buffer: Buffer.from(`${csv}\n`) };
    await page.getByLabel("Roster file").setInputFiles(file);
    await expect(page.getByRole("heading", { name: "2. Match the columns" })).toBeVisible();
    // The guess takes the preferred name; this school wants the legal forename.
    await expect(page.getByLabel("First name", { exact: true })).toHaveValue("Known As");
    await expect(page.getByLabel("Teacher", { exact: true })).toHaveValue("Class teacher");
    await page.getByLabel("First name", { exact: true }).selectOption("Forename");
    await page.getByRole("button", { name: "Preview import" }).click();
    const classes = page.getByRole("table", { name: "Classes in the import" });
    await expect(classes.getByRole("row", { name: /E2E-Memory/ })).toContainText("James Patel");
    await expect(classes.getByRole("row", { name: /E2E-Memory/ })).toContainText('teacher "nobody@e2e-memory.example.org" is not staff of the school');
    await expectNoAxeViolations(page, "the preview with a class's teacher and a note");
    await page.getByRole("button", { name: "Import 3 people" }).click();
    await expect(page.getByText("3 created, 0 updated, 0 unchanged, 0 skipped")).toBeVisible();

    // The same file again: no column screen, the remembered columns, nothing to import.
    await page.getByRole("button", { name: "Import another file" }).click();
    await page.getByLabel("Roster file").setInputFiles(file);
    await expect(page.getByRole("heading", { name: "3. Check the preview" })).toBeVisible();
    await expect(page.getByText(/Columns as you chose them on/)).toBeVisible();
    await expect(page.getByText("Everything in this file is already in Markbook: there is nothing to import.")).toBeVisible();
    await expect(page.getByText("3 people are already up to date")).toBeVisible();
    await expectNoAxeViolations(page, "the preview with remembered columns");
    await screenshot(page, testInfo, "roster-import-remembered-columns", true);
    // The columns are still there to change.
    await page.getByRole("button", { name: "Change the columns" }).click();
    await expect(page.getByLabel("First name", { exact: true })).toHaveValue("Forename");
  });

  test("an admin sets an imported class's teachers on the class page, and the teacher can start its batch", async ({ page, browser }, testInfo) => {
    test.setTimeout(90_000);
    await signIn(page, ADMIN_EMAIL);
    await page.goto("/people/import");
    const csv = "Name,Email,Sets\nPia Lund,pia.lund@e2e-teachers.example.org,E2E-Teachers\n";
    await page.getByLabel("Roster file").setInputFiles({ name: "set.csv", mimeType: "text/csv", buffer: Buffer.from(csv) });
    await page.getByRole("button", { name: "Preview import" }).click();
    await expect(page.getByRole("table", { name: "Classes in the import" }).getByRole("row", { name: /E2E-Teachers/ })).toContainText("No main teacher");
    await page.getByRole("button", { name: "Import 1 person" }).click();
    await expect(page.getByText("1 created")).toBeVisible();

    await page.goto("/classes");
    await page.getByRole("link", { name: "E2E-Teachers" }).click();
    await expect(page.getByRole("heading", { level: 1, name: "E2E-Teachers" })).toBeVisible();
    await expect(page.getByText("no main teacher yet")).toBeVisible();
    const teachers = page.locator("#teachers");
    await teachers.getByLabel("Main teacher").selectOption({ label: "Sarah Mitchell" });
    await expect(page.getByText("Sarah Mitchell is now the main teacher of E2E-Teachers.")).toBeVisible();
    await teachers.getByLabel("Add a teacher").selectOption({ label: "James Patel" });
    await teachers.getByRole("button", { name: "Add teacher" }).click();
    await expect(page.getByText("James Patel now teaches E2E-Teachers too.")).toBeVisible();
    await expect(page.getByText("taught by Sarah Mitchell, with James Patel")).toBeVisible();
    await expect(teachers.getByRole("list", { name: "Other teachers of E2E-Teachers" })).toContainText("James Patel");
    await expectNoAxeViolations(page, "the class page's teachers");
    await screenshot(page, testInfo, "class-teachers", true);

    // The other teacher's New batch dialog lists the class.
    const context = await browser.newContext();
    const colleague = await context.newPage();
    await signIn(colleague, "teacher2@northfield.example");
    await colleague.goto("/batches");
    await colleague.getByRole("button", { name: "New batch" }).first().click();
    const dialog = colleague.getByRole("dialog", { name: "New marking batch" });
    await expect(dialog.getByLabel("Class").locator("option", { hasText: "E2E-Teachers" })).toHaveCount(1);
    await context.close();

    // Removing him takes it away again.
    await teachers.getByRole("button", { name: "Remove James Patel from the class's teachers" }).click();
    await expect(page.getByText("James Patel no longer teaches E2E-Teachers.")).toBeVisible();
    await expect(page.getByText("Nobody else teaches this class.")).toBeVisible();
  });
});
