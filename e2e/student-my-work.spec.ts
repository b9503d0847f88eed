import crypto from "node:crypto";
import { expect, test } from "@playwright/test";
import postgres from "postgres";
import { type MarkbookNode, runMarkbookCli, startMarkbookNode } from "../tests/support/markbook-node";
import { multipartBody } from "../tests/support/exam-fixtures";
import { DEMO_PASSWORD, STUDENT_EMAIL, TEACHER_EMAIL, expectNoAxeViolations, fillSignIn, screenshot } from "./helpers";
import { scriptPdf } from "./papers";

/**
 * The student's "My work" (issue 35, item 3) on a phone: a student signs in at 390×844, opens My work,
 * reads their marked script (per-question marks equal the server's), axe finds nothing, and no response
 * their browser gets holds another student's name.
 *
 * Until exam.release.release lands (the release slice) the release is made as tests/support/release.ts
 * makes it: the columns set as the database owner. That needs the database, so this spec runs its own
 * app node on PostgreSQL (TEST_DATABASE_URL's server, else an embedded one), seeded with the demo school,
 * as e2e/two-node.spec.ts does; the production build is the one Playwright's web server built.
 */

const NODE_PORT = Number(process.env.E2E_PORT ?? 3100) + 21;
const SPEC = "NAB-GCSE-MATH-2025";

test.describe.configure({ mode: "serial", timeout: 240_000 });

let node: MarkbookNode | undefined;
let admin: postgres.Sql;
let stopServices: () => Promise<void>;
let fixture: { submissionId: string; batchId: string; otherNames: string[]; ownName: string };

async function startServices() {
  const ownServer = process.env.TEST_DATABASE_URL ? undefined : await (await import("../tests/support/embedded-postgres")).startRunPostgres();
  const adminUrl = process.env.TEST_DATABASE_URL ?? ownServer!.adminUrl;
  const database = `markbook_my_work_${process.pid}`;
  const server = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await server.unsafe(`drop database if exists ${database} with (force)`);
  await server.unsafe(`create database ${database}`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  return {
    databaseUrl: url.toString(),
    async stop() {
      await server.unsafe(`drop database if exists ${database} with (force)`);
      await server.end();
      await ownServer?.stop();
    },
  };
}

test.beforeAll(async () => {
  test.setTimeout(300_000);
  const services = await startServices();
  stopServices = () => services.stop();
  admin = postgres(services.databaseUrl, { max: 1, onnotice: () => {} });
  const env = {
    DATABASE_URL: services.databaseUrl,
    AUTH_SECRET: crypto.randomBytes(32).toString("hex"),
    SYNC_TOKEN_SECRET: crypto.randomBytes(32).toString("hex"),
    ALLOW_REMOTE_MODELS: "false",
    LOG_LEVEL: "warn",
  };
  node = await startMarkbookNode({ name: "my-work", port: NODE_PORT, env: { ...env, SEED_DEMO: "true" }, onSpawn: (started) => (node = started) });
  const token = await runMarkbookCli(env, "token", "--email", TEACHER_EMAIL);
  const call = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const response = await fetch(`${node!.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    expect(response.ok, `${method} ${path}: ${response.status} ${text}`).toBe(true);
    return JSON.parse(text) as T;
  };

  // The teacher's paper: question 1 with parts 1a and 1b on page 1, question 2 on page 2; 1 assesses a point the demo curriculum names, 2 one it does not.
  const ids = { q1: crypto.randomUUID(), q1a: crypto.randomUUID(), q1b: crypto.randomUUID(), q2: crypto.randomUUID() };
  const template = await call<{ id: string }>("POST", "/api/exam/templates", { title: "Year 10 algebra mock", page_count: 2 });
  await call("PUT", `/api/exam/templates/${template.id}`, {
    questions: [
      { id: ids.q1, parent_id: null, label: "1", order: 0, max_marks: 5, answer_type: null, mark_scheme: null, spec_ref: `${SPEC}/N2`, is_container: true },
      { id: ids.q1a, parent_id: ids.q1, label: "1a", order: 1, max_marks: 3, answer_type: null, mark_scheme: null, spec_ref: null, is_container: false },
      { id: ids.q1b, parent_id: ids.q1, label: "1b", order: 2, max_marks: 2, answer_type: null, mark_scheme: null, spec_ref: null, is_container: false },
      { id: ids.q2, parent_id: null, label: "2", order: 3, max_marks: 4, answer_type: null, mark_scheme: null, spec_ref: `${SPEC}/Z9`, is_container: false },
    ],
    response_areas: [
      { id: crypto.randomUUID(), question_id: ids.q1a, page: 1, kind: "response", response_form: null, x: 0.08, y: 0.12, width: 0.84, height: 0.3 },
      { id: crypto.randomUUID(), question_id: ids.q1b, page: 1, kind: "response", response_form: null, x: 0.08, y: 0.5, width: 0.84, height: 0.3 },
      { id: crypto.randomUUID(), question_id: ids.q2, page: 2, kind: "response", response_form: null, x: 0.08, y: 0.12, width: 0.84, height: 0.5 },
    ],
    boundaries: [],
  });
  const teaching = await call<{ classes: { id: string }[] }>("GET", "/database/timetable/classes/teaching");
  const batch = await call<{ id: string }>("POST", "/api/exam/batches", { template_id: template.id, class_id: teaching.classes[0]!.id });
  const queue = await call<{ submissions: { id: string; student_id: string; student_name: string }[] }>("GET", `/api/exam/batches/${batch.id}/queue`);
  const [student] = await admin<{ id: string }[]>`select id from users where email = ${STUDENT_EMAIL}`;
  const mine = queue.submissions.find((submission) => submission.student_id === student!.id)!;
  const classmate = queue.submissions.find((submission) => submission.student_id !== student!.id)!;

  const form = multipartBody([
    { name: "student_id", value: mine.student_id },
    { name: "file", filename: "scan.pdf", bytes: await scriptPdf(2, "Script") },
  ]);
  const uploaded = await fetch(`${node.url}/api/exam/batches/${batch.id}/scans`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": form.contentType },
    body: form.body,
  });
  expect(uploaded.status).toBe(200);
  const mark = (submissionId: string, questionId: string, awarded: number, comment?: string) =>
    call("PUT", `/api/exam/marks/${crypto.randomUUID()}`, { submission_id: submissionId, question_id: questionId, awarded_marks: awarded, confirmed: true, ...(comment ? { comment } : {}) });
  await mark(mine.id, ids.q1a, 2, "Good method; check the sign in the last line.");
  await mark(mine.id, ids.q1b, 2);
  await mark(mine.id, ids.q2, 1, "Set up the equation first.");
  await mark(classmate.id, ids.q2, 4, `Well done, ${classmate.student_name}.`);

  // Annotations as the annotations slice will write them (by the batch's owner), and the release as
  // exam.release.release will make it: both as the database owner until those slices land.
  const [owner] = await admin<{ id: string }[]>`select id from users where email = ${TEACHER_EMAIL}`;
  const shapes = [
    { page: 1, kind: "tick", geometry: { x: 0.7, y: 0.25 }, text: null, question_id: ids.q1a },
    { page: 1, kind: "text", geometry: { x: 0.3, y: 0.35 }, text: "Sign error here", question_id: ids.q1a },
    { page: 1, kind: "highlight", geometry: { x: 0.1, y: 0.55, width: 0.4, height: 0.06 }, text: null, question_id: ids.q1b },
    { page: 2, kind: "cross", geometry: { x: 0.6, y: 0.3 }, text: null, question_id: ids.q2 },
    { page: 2, kind: "pen", geometry: { points: [[0.2, 0.4, 0.5], [0.3, 0.45, 0.6], [0.45, 0.42, 0.5]] }, text: null, question_id: ids.q2 },
  ];
  for (const shape of shapes) {
    await admin`insert into exam_annotations (id, batch_id, submission_id, page, kind, geometry, text, question_id, author_id)
      values (${crypto.randomUUID()}, ${batch.id}, ${mine.id}, ${shape.page}, ${shape.kind}, ${admin.json(shape.geometry)}, ${shape.text}, ${shape.question_id}, ${owner!.id})`;
  }
  await admin`update exam_batches set released_at = now(), release_scope = 'all' where id = ${batch.id}`;
  await admin`update exam_submissions set released_at = now() where batch_id = ${batch.id} and student_id is not null`;

  fixture = {
    submissionId: mine.id,
    batchId: batch.id,
    ownName: mine.student_name,
    otherNames: queue.submissions.filter((submission) => submission.id !== mine.id && submission.student_name).map((submission) => submission.student_name),
  };
});

test.afterAll(async () => {
  await node?.stop();
  await admin?.end();
  await stopServices?.();
});

test("a student on a phone opens My work and reads their marked script: the server's marks, what to revise, the marking in words, no other name", async ({ page }, testInfo) => {
  await page.setViewportSize({ width: 390, height: 844 });
  const bodies: { url: string; text: string }[] = [];
  page.on("response", async (response) => {
    try {
      bodies.push({ url: response.url(), text: (await response.body()).toString("latin1") });
    } catch {
      // a redirect has no body
    }
  });
  const base = node!.url;
  await page.goto(`${base}/signin`);
  await fillSignIn(page, STUDENT_EMAIL, DEMO_PASSWORD);
  await expect(page).toHaveURL(/\/timetables$/);

  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "My work" }).click();
  await expect(page).toHaveURL(/\/my-work$/);
  await expect(page.getByRole("heading", { level: 1, name: "My work" })).toBeVisible();
  const scriptLink = page.getByRole("link", { name: "Year 10 algebra mock" });
  await expect(scriptLink).toBeVisible();
  await expect(page.getByText("5 / 9")).toBeVisible();
  await expectNoAxeViolations(page);
  await screenshot(page, testInfo, "student-my-work-list-390");

  await scriptLink.click();
  await expect(page).toHaveURL(new RegExp(`/my-work/${fixture.submissionId}$`));
  await expect(page.getByRole("heading", { level: 1, name: "Year 10 algebra mock" })).toBeVisible();

  // The per-question marks are the server's.
  const served = (await (await page.request.get(`${base}/api/me/scripts/${fixture.submissionId}`)).json()) as {
    questions: { label: string; awarded_marks: number | null }[];
    total_awarded: number;
  };
  for (const question of served.questions) {
    await expect(page.locator(`tr[data-question="${question.label}"] [data-testid="awarded"]`)).toHaveText(String(question.awarded_marks));
  }
  expect(served.total_awarded).toBe(5);

  // What to revise: question 2's point (3 of 4 lost) first, named by its reference (the curriculum has no such point); then 1's, named by the curriculum.
  const revise = page.getByRole("region", { name: "What to revise" }).getByRole("listitem");
  await expect(revise).toHaveCount(2);
  await expect(revise.nth(0)).toContainText(`${SPEC}/Z9`);
  await expect(revise.nth(1)).toContainText("Apply the four operations to integers, decimals and fractions");

  // The scan's pages, each with its marking drawn and, under it, in words.
  await expect(page.locator(".paper__page canvas").first()).toBeVisible({ timeout: 60_000 });
  await expect(page.locator(".paper__page")).toHaveCount(2);
  await expect(page.getByText("Tick on question 1a", { exact: true })).toBeVisible();
  await expect(page.getByText("Comment on question 1a: Sign error here", { exact: true })).toBeVisible();
  await expect(page.getByText("Pen mark on question 2", { exact: true })).toBeAttached();

  // The page itself never scrolls sideways on a phone.
  expect(await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
  await expectNoAxeViolations(page);
  await screenshot(page, testInfo, "student-my-work-script-390", true);
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(page.locator(".paper__page canvas").first()).toBeVisible();
  await screenshot(page, testInfo, "student-my-work-script-1280", true);

  // Nothing the browser was sent names another student.
  expect(bodies.length).toBeGreaterThan(5);
  for (const name of fixture.otherNames) {
    const leaks = bodies.filter((body) => body.text.includes(name)).map((body) => body.url);
    expect(leaks, `responses naming ${name}`).toEqual([]);
  }
});

test("the student downloads their script as a PDF; the batch page offers the class's marked scripts (zip) and feedback sheets (PDF)", async ({ page, browser }, testInfo) => {
  const base = node!.url;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/signin`);
  await fillSignIn(page, STUDENT_EMAIL, DEMO_PASSWORD);
  await expect(page).toHaveURL(/\/timetables$/);
  await page.goto(`${base}/my-work/${fixture.submissionId}`);
  const download = page.getByRole("link", { name: "Download as PDF" });
  await expect(download).toBeVisible();
  await screenshot(page, testInfo, "student-script-pdf-390");
  const pdf = await page.request.get(`${base}${await download.getAttribute("href")}`);
  expect(pdf.status()).toBe(200);
  expect(pdf.headers()["content-type"]).toBe("application/pdf");
  expect((await pdf.body()).subarray(0, 5).toString("latin1")).toBe("%PDF-");
  await page.setViewportSize({ width: 1280, height: 800 });
  await expect(download).toBeVisible();
  await screenshot(page, testInfo, "student-script-pdf-1280");

  const staff = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  const teacher = await staff.newPage();
  await teacher.goto(`${base}/signin`);
  await fillSignIn(teacher, TEACHER_EMAIL, DEMO_PASSWORD);
  await expect(teacher).not.toHaveURL(/\/signin/);
  await teacher.goto(`${base}/batches/${fixture.batchId}`);
  const card = teacher.getByRole("region", { name: "Marked scripts to hand back" });
  const zip = card.getByRole("link", { name: "Marked scripts (zip)" });
  const sheets = card.getByRole("link", { name: "Feedback sheets (PDF)" });
  await expect(zip).toBeVisible();
  await expect(sheets).toBeVisible();
  await card.scrollIntoViewIfNeeded();
  await teacher.screenshot({ path: "e2e/artifacts/returns-downloads-1280.png" });
  await testInfo.attach("returns-downloads-1280", { path: "e2e/artifacts/returns-downloads-1280.png", contentType: "image/png" });
  const zipReply = await teacher.request.get(`${base}${await zip.getAttribute("href")}`);
  expect(zipReply.status()).toBe(200);
  expect(zipReply.headers()["content-type"]).toBe("application/zip");
  expect((await zipReply.body()).subarray(0, 2).toString("latin1")).toBe("PK");
  const sheetsReply = await teacher.request.get(`${base}${await sheets.getAttribute("href")}`);
  expect(sheetsReply.status()).toBe(200);
  expect((await sheetsReply.body()).subarray(0, 5).toString("latin1")).toBe("%PDF-");
  await teacher.setViewportSize({ width: 390, height: 844 });
  await expect(zip).toBeVisible();
  await card.scrollIntoViewIfNeeded();
  await teacher.screenshot({ path: "e2e/artifacts/returns-downloads-390.png" });
  await testInfo.attach("returns-downloads-390", { path: "e2e/artifacts/returns-downloads-390.png", contentType: "image/png" });
  await expectNoAxeViolations(teacher);
  await staff.close();
});

test("once reviews have closed, the student reads since when, on the list and the script, and is offered no request", async ({ page }, testInfo) => {
  await admin`update exam_batches set reviews_until = now() - interval '1 day' where id = ${fixture.batchId}`;
  const base = node!.url;
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`${base}/signin`);
  await fillSignIn(page, STUDENT_EMAIL, DEMO_PASSWORD);
  await expect(page).toHaveURL(/\/timetables$/);
  await page.goto(`${base}/my-work`);
  await expect(page.getByText(/reviews closed on/)).toBeVisible();
  await expect(page.getByText(/you can ask for a review until/)).toHaveCount(0);

  await page.goto(`${base}/my-work/${fixture.submissionId}`);
  const card = page.getByRole("region", { name: "Review requests" });
  await expect(card.getByText(/^Reviews closed on .*: you can no longer ask for a question to be looked at again\.$/)).toBeVisible();
  await expect(page.getByText(/^Review requests closed on /)).toBeVisible();
  await expect(page.getByText(/You can ask for a question to be looked at again until/)).toHaveCount(0);
  await expect(page.getByRole("button", { name: /^Ask for a review of question/ })).toHaveCount(0);
  await expectNoAxeViolations(page);
  await card.scrollIntoViewIfNeeded();
  await screenshot(page, testInfo, "student-reviews-closed-390");
});
