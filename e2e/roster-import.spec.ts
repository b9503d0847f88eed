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
});
