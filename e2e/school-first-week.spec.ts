import fs from "node:fs";
import { parse } from "csv-parse/sync";
import { strToU8, zipSync } from "fflate";
import { expect, type Page, test } from "@playwright/test";
import { pdfTextPages } from "../tests/support/pdf-text";
import { ADMIN_EMAIL, TEACHER_EMAIL, expectNoAxeViolations, fillSignIn, mutate, screenshot, signIn } from "./helpers";

/**
 * A school's first week (issue 33), as a new admin and a teacher live it: people in from a SIMS-style
 * export and a OneRoster bundle with e-mail usernames, both imported again with no change, a class given
 * its teacher, sign-in slips printed and a pupil in from one, and the teacher's results download read back
 * as a spreadsheet reads it.
 */

const DEMO_TEMPLATE = "Mathematics Paper 1 (Non-calculator), June 2026 mock";
const TEACHER_NAME = "Sarah Mitchell";

const PUPILS = [
  { upn: "K8012001", surname: "Łukasiewicz", legal: "Zoë", preferred: "" },
  { upn: "K8012002", surname: "O’Brien", legal: "Siobhán", preferred: "Shiv" },
  { upn: "K8012003", surname: "Müller", legal: "Jürgen", preferred: "" },
  { upn: "K8012004", surname: "Ødegaard", legal: "Søren", preferred: "" },
  { upn: "K8012005", surname: "Dubois", legal: "Chloé", preferred: "" },
  { upn: "K8012006", surname: "Þórsdóttir", legal: "Guðrún", preferred: "Gunna" },
];

/** A SIMS-style export: legal forename, preferred name, legal surname, UPN, registration group; BOM and CRLF. */
function simsExport(stamp: string, group: string) {
  const rows = PUPILS.map((pupil, index) => [`${pupil.upn}${stamp}`, pupil.surname, pupil.legal, pupil.preferred, group, "Year 9", `pupil${index}.${stamp}@e2e-week.example.org`]);
  const text = ["UPN,Legal Surname,Legal Forename,Preferred Name,Reg Group,Year,Email", ...rows.map((row) => row.map((cell) => `"${cell}"`).join(","))].join("\r\n");
  return { upns: rows.map((row) => row[0]!), file: { name: "sims-export.csv", mimeType: "text/csv", buffer: Buffer.from(`\ufeff${text}\r\n`) } };
}

/** A OneRoster bundle as Google- and Microsoft-schools export it: every username is the person's e-mail. */
function oneRosterBundle(stamp: string) {
  const domain = `or${stamp}.example.org`;
  const people = [
    ["t1", "teacher", "Ingrid", "Næss"],
    ["s1", "student", "Łucja", "Wiśniewska"],
    ["s2", "student", "Dmitri", "Ivanov"],
  ];
  const users = [
    "sourcedId,status,dateLastModified,enabledUser,orgSourcedIds,role,username,userIds,givenName,familyName,middleName,identifier,email,sms,phone,agentSourcedIds,grades,password",
    ...people.map(([id, role, given, family]) => {
      const email = `${given!.toLowerCase().normalize("NFD").replace(/[^a-z]/g, "")}.${id}@${domain}`;
      return `${id}-${stamp},,2026-09-01T08:00:00.000Z,true,org-${stamp},${role},${email},,${given},${family},,,${email},,,,9,`;
    }),
  ];
  const classes = [
    "sourcedId,status,dateLastModified,title,grades,courseSourcedId,classCode,classType,location,schoolSourcedId,termSourcedIds,subjects,subjectCodes,periods",
    `cls-${stamp},,2026-09-01T08:00:00.000Z,Year 9 Science,9,crs-sc-9,OR-${stamp},scheduled,Lab 2,org-${stamp},term-2026,Science,SC,3`,
  ];
  const enrollments = [
    "sourcedId,status,dateLastModified,classSourcedId,schoolSourcedId,userSourcedId,role,primary,beginDate,endDate",
    ...people.map(([id, role], index) => `enr-${index}-${stamp},,2026-09-01T08:00:00.000Z,cls-${stamp},org-${stamp},${id}-${stamp},${role},${role === "teacher"},2026-09-01,2027-07-20`),
  ];
  const zip = zipSync({ "users.csv": strToU8(users.join("\n")), "classes.csv": strToU8(classes.join("\n")), "enrollments.csv": strToU8(enrollments.join("\n")) });
  return { name: "oneroster.zip", mimeType: "application/zip", buffer: Buffer.from(zip) };
}

async function importFile(page: Page, file: { name: string; mimeType: string; buffer: Buffer }) {
  await page.goto("/people/import");
  await page.getByLabel("Roster file").setInputFiles(file);
}

const sameFileAgain = async (page: Page, file: { name: string; mimeType: string; buffer: Buffer }, people: number) => {
  await importFile(page, file);
  await expect(page.getByRole("heading", { name: "3. Check the preview" })).toBeVisible();
  await expect(page.getByText("Everything in this file is already in Markbook: there is nothing to import.")).toBeVisible();
  await expect(page.getByText(`${people} people are already up to date`)).toBeVisible();
  await expect(page.getByRole("button", { name: /^Import/ })).toHaveCount(0);
};

test("a school's first week: people in from its exports, a class with its teacher, slips, a pupil in, results out", async ({ page, browser }, testInfo) => {
  test.setTimeout(240_000);
  const stamp = Date.now().toString(36);
  const group = `9W-${stamp}`;
  const sims = simsExport(stamp, group);
  await signIn(page, ADMIN_EMAIL);

  // The SIMS-style export: forenames recognised, the preferred name first, the UPN kept.
  await importFile(page, sims.file);
  await expect(page.getByRole("heading", { name: "2. Match the columns" })).toBeVisible();
  await expect(page.getByLabel("First name", { exact: true })).toHaveValue("Preferred Name");
  await expect(page.getByLabel("Legal first name")).toHaveValue("Legal Forename");
  await expect(page.getByLabel("Last name")).toHaveValue("Legal Surname");
  await page.getByRole("button", { name: "Preview import" }).click();
  const created = page.getByRole("table", { name: "People created by the import" });
  await expect(created.getByRole("row", { name: /Zoë Łukasiewicz/ })).toContainText(group);
  await expect(created.getByRole("row", { name: /O’Brien/ })).toContainText("Shiv");
  await page.getByRole("button", { name: `Import ${PUPILS.length} people` }).click();
  await expect(page.getByText(`${PUPILS.length} created, 0 updated, 0 unchanged, 0 skipped`)).toBeVisible();
  // The same file again: the columns as chosen, and nothing to change.
  await sameFileAgain(page, sims.file, PUPILS.length);
  await expect(page.getByText(/Columns as you chose them on/)).toBeVisible();

  // The OneRoster bundle whose usernames are e-mails, twice.
  const bundle = oneRosterBundle(stamp);
  await importFile(page, bundle);
  await expect(page.getByRole("heading", { name: "3. Check the preview" })).toBeVisible();
  await page.getByRole("button", { name: "Import 3 people" }).click();
  await expect(page.getByText("3 created, 0 updated, 0 unchanged, 0 skipped")).toBeVisible();
  await sameFileAgain(page, bundle, 3);
  await screenshot(page, testInfo, "first-week-oneroster-again");

  // The registration group has no teacher yet: the admin gives it one on its page.
  await page.goto("/classes");
  await page.getByRole("link", { name: group }).click();
  await expect(page.getByText("no main teacher yet")).toBeVisible();
  await page.locator("#teachers").getByLabel("Main teacher").selectOption({ label: TEACHER_NAME });
  await expect(page.getByText(`${TEACHER_NAME} is now the main teacher of ${group}.`)).toBeVisible();

  // Sign-in slips for the class, read back: every pupil, by surname, a username and a password each.
  await page.getByRole("button", { name: "Sign-in slips" }).click();
  const dialog = page.getByRole("dialog", { name: "Sign-in slips" });
  await expect(dialog.getByText(`The PDF will have ${PUPILS.length} slips, ten to a page, sorted by class and surname.`)).toBeVisible();
  const downloadingSlips = page.waitForEvent("download");
  await dialog.getByRole("button", { name: "Download slips" }).click();
  const slipsPdf = new Uint8Array(fs.readFileSync((await (await downloadingSlips).path())));
  const lines = (await pdfTextPages(slipsPdf)).join("\n").split("\n").filter((line) => line.trim() !== "");
  expect(lines.filter((line) => line.startsWith("Username: "))).toHaveLength(PUPILS.length);
  const zoe = lines.slice(lines.findIndex((line) => line.includes("Łukasiewicz")));
  const username = zoe.find((line) => line.startsWith("Username: "))!.slice("Username: ".length);
  const password = zoe[zoe.indexOf("Temporary password:") + 1]!;

  // Zoë signs in from her slip on her phone and chooses her own password.
  const phone = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const pupil = await phone.newPage();
  await pupil.goto("/signin");
  await fillSignIn(pupil, username, password);
  await expect(pupil).toHaveURL(/\/choose-password$/);
  await pupil.waitForLoadState("networkidle");
  await pupil.getByLabel("Temporary password").fill(password);
  await pupil.getByLabel("New password", { exact: true }).fill("zoë's own passphrase");
  await pupil.getByLabel("New password again").fill("zoë's own passphrase");
  await pupil.getByRole("button", { name: "Save and continue" }).click();
  await expect(pupil).toHaveURL(/\/timetables$/);
  await expect(pupil.getByRole("heading", { level: 1, name: "My timetable" })).toBeVisible();
  await expect(pupil.getByText("Loading your timetable…")).toBeHidden();
  await screenshot(pupil, testInfo, "first-week-pupil-in");
  await phone.close();

  // The teacher makes the mock for the class she now teaches, and downloads its results as the school reads them.
  const teacherContext = await browser.newContext();
  const teacher = await teacherContext.newPage();
  await signIn(teacher, TEACHER_EMAIL);
  const templates = (await (await teacher.request.get("/api/exam/templates")).json()) as { templates: { id: string; title: string }[] };
  const template = templates.templates.find((entry) => entry.title === DEMO_TEMPLATE)!;
  const { classes } = (await (await teacher.request.get("/database/timetable/classes/teaching")).json()) as { classes: { id: string; name: string }[] };
  const taught = classes.find((entry) => entry.name === group);
  expect(taught, "the class she was just given is among those she teaches").toBeDefined();
  const batch = await mutate<{ id: string }>(teacher, "exam.batches.create", { template_id: template.id, class_id: taught!.id, title: `Mock ${stamp}` });
  await teacher.goto(`/batches/${batch.id}/results`);
  const downloadingCsv = teacher.waitForEvent("download");
  await teacher.getByRole("link", { name: "Download results (CSV)" }).click();
  const text = fs.readFileSync((await (await downloadingCsv).path()), "utf8");
  expect(text.charCodeAt(0), "a byte-order mark, so Excel reads UTF-8").toBe(0xfeff);
  const [header, ...rows]: string[][] = parse(text, { bom: true });
  expect(header!.slice(0, 8)).toEqual(["School ID", "Surname", "First name", "Class", "State", "Total", "Max", "Percentage"]);
  expect(rows).toHaveLength(PUPILS.length);
  expect(rows.map((row) => row[0]).sort()).toEqual([...sims.upns].sort());
  expect(rows.map((row) => row[1])).toContain("Łukasiewicz");
  expect(rows.map((row) => row[1])).toContain("Þórsdóttir");
  // Nobody is marked yet: no total pretends to be a score.
  expect(rows.every((row) => row[5] === "" && row[7] === "")).toBe(true);
  await expectNoAxeViolations(teacher, "the results page of a batch nobody has marked");
  await teacherContext.close();
});
