import crypto from "node:crypto";
import { expect, test } from "@playwright/test";
import { DEMO_PASSWORD, STUDENT_EMAIL, expectNoAxeViolations, fillSignIn, followLink, screenshot, signIn } from "./helpers";
import { scriptPdf, threeQuestionTemplate } from "./papers";

/**
 * Marked work back to students, the whole journey (issue 35, items 1, 2, 3 and 6): the teacher annotates
 * the student's script with the keyboard and the mouse, and releases the marked batch with reviews open
 * through the release dialog; the student, on a phone, opens My work,
 * reads their script and asks for a review of one question; the teacher opens the batch's Review
 * requests and changes the mark with a reply (and meets a request another marker answered meanwhile);
 * the student reloads and sees the new mark in the table and the total, and the answer. axe on the new
 * screens; no other student's name in anything the student's browser receives.
 */

const STUDENT_NAME = "Amelia Hughes"; // student01 of the demo school (server/demo/school.ts)

/** A calendar day `days` from now, as an <input type="date"> takes it. */
const dayFromNow = (days: number) => {
  const moment = new Date(Date.now() + days * 24 * 3600_000);
  return `${moment.getFullYear()}-${String(moment.getMonth() + 1).padStart(2, "0")}-${String(moment.getDate()).padStart(2, "0")}`;
};

test("returns journey: the teacher annotates by keyboard and mouse and releases with reviews open, the student on a phone asks for a review, the teacher changes the mark with a reply, the student sees the new mark and the answer", async ({ browser, page }, testInfo) => {
  test.setTimeout(240_000);
  await signIn(page);

  // The teacher's paper: 1a (3 marks) and 1b (2) on page 1, 2 (4) on page 2; a batch of the teacher's first class.
  const title = `Returned ${Date.now().toString(36)}`;
  const { template, ids } = await threeQuestionTemplate(page, title);
  const { classes } = (await (await page.request.get("/database/timetable/classes/teaching")).json()) as { classes: { id: string }[] };
  const batch = (await (await page.request.post("/api/exam/batches", { data: { template_id: template.id, class_id: classes[0]!.id, title } })).json()) as { id: string };
  const queue = (await (await page.request.get(`/api/exam/batches/${batch.id}/queue`)).json()) as { submissions: { id: string; student_id: string | null; student_name: string | null }[] };
  const mine = queue.submissions.find((submission) => submission.student_name === STUDENT_NAME)!;
  expect(mine, `${STUDENT_NAME} is in the teacher's first class`).toBeDefined();
  const classmate = queue.submissions.find((submission) => submission.student_name && submission.student_name !== STUDENT_NAME)!;
  const otherNames = queue.submissions.map((submission) => submission.student_name).filter((name): name is string => Boolean(name) && name !== STUDENT_NAME);

  // Both scripts scanned and marked: the student's 2 + 2 + 1 = 5 of 9; the classmate's comment names the classmate.
  for (const submission of [mine, classmate]) {
    const uploaded = await page.request.post(`/api/exam/batches/${batch.id}/scans`, {
      multipart: { student_id: submission.student_id!, file: { name: "scan.pdf", mimeType: "application/pdf", buffer: await scriptPdf(2, "Script") } },
    });
    expect(uploaded.ok(), await uploaded.text()).toBe(true);
  }
  const mark = async (submissionId: string, questionId: string, awarded: number, comment?: string) => {
    const marked = await page.request.put(`/api/exam/marks/${crypto.randomUUID()}`, {
      data: { submission_id: submissionId, question_id: questionId, awarded_marks: awarded, confirmed: true, ...(comment ? { comment } : {}) },
    });
    expect(marked.status(), await marked.text()).toBe(200);
  };
  await mark(mine.id, ids.q1a, 2);
  await mark(mine.id, ids.q1b, 2);
  await mark(mine.id, ids.q2, 1, "Set up the equation first.");
  for (const question of [ids.q1a, ids.q1b]) await mark(classmate.id, question, 1);
  await mark(classmate.id, ids.q2, 4, `Well done, ${classmate.student_name}.`);

  // The teacher annotates the student's script on the marking screen: a tick with the keyboard (t, at
  // 1a's answer; Enter back to the mark), a pen stroke with the mouse across 1b's answer.
  await page.setViewportSize({ width: 1366, height: 900 });
  await page.goto(`/batches/${batch.id}/mark?submission=${mine.id}`);
  await expect(page.locator(".scan-viewer canvas").first()).toBeVisible({ timeout: 60_000 });
  await expect(page.locator("#mark-input")).toBeFocused();
  await page.keyboard.press("t");
  await expect(page.getByRole("button", { name: "Tick on question 1a" })).toBeFocused();
  await page.keyboard.press("Enter");
  await page.getByRole("toolbar", { name: "Annotation tools" }).getByRole("button", { name: "Pen" }).click();
  const overlay = page.locator('[data-testid="annotation-overlay"][data-scan-page="1"]');
  await overlay.evaluate((element) => element.scrollIntoView({ block: "center" }));
  const sheet = (await overlay.boundingBox())!;
  await page.mouse.move(sheet.x + sheet.width * 0.2, sheet.y + sheet.height * 0.6);
  await page.mouse.down();
  for (let step = 1; step <= 15; step++) await page.mouse.move(sheet.x + sheet.width * (0.2 + step * 0.03), sheet.y + sheet.height * (0.6 + Math.sin(step / 2) * 0.02));
  await page.mouse.up();
  await expect(page.getByRole("button", { name: "Pen mark on question 1b" })).toBeAttached();
  await expect(page.getByText("Annotations saved")).toBeVisible();
  await expectNoAxeViolations(page, "the marking screen with its annotations");

  // The teacher releases every script with reviews open for a week, through the release dialog.
  await page.goto(`/batches/${batch.id}`);
  const card = page.getByRole("region", { name: "Results for students" });
  await card.getByRole("button", { name: "Release results" }).click();
  const dialog = page.getByRole("dialog", { name: "Release results to students" });
  await dialog.getByLabel(/^All scripts students sat/).check();
  await dialog.getByLabel("Reviews open until (optional)").fill(dayFromNow(7));
  await dialog.getByRole("button", { name: "Release results" }).click();
  await expect(dialog).toBeHidden();
  await expect(card.getByTestId("release-state")).toHaveText(/^Released on .+ Students can ask for reviews until .+\.$/);
  // No request yet: no link to them.
  await expect(page.getByRole("link", { name: /^Review requests/ })).toHaveCount(0);

  // The student, on a phone, every response their browser receives kept.
  const studentContext = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const student = await studentContext.newPage();
  const bodies: { url: string; text: string }[] = [];
  student.on("response", async (response) => {
    try {
      bodies.push({ url: response.url(), text: (await response.body()).toString("latin1") });
    } catch {
      // a redirect has no body
    }
  });
  await student.goto("/signin");
  await fillSignIn(student, STUDENT_EMAIL, DEMO_PASSWORD);
  await expect(student).toHaveURL(/\/timetables$/);
  await followLink(student, student.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "My work" }), /\/my-work$/);
  await followLink(student, student.getByRole("link", { name: title }), new RegExp(`/my-work/${mine.id}$`));
  await expect(student.getByRole("heading", { level: 1, name: title })).toBeVisible();
  await expect(student.locator('tr[data-question="2"] [data-testid="awarded"]')).toHaveText("1");
  // The marking drawn on the scan, and said in words.
  await expect(student.getByText("Tick on question 1a", { exact: true })).toBeVisible();
  await expect(student.getByText("Pen mark on question 1b", { exact: true })).toBeAttached();
  const reviews = student.getByRole("region", { name: "Review requests" });
  await expect(reviews).toContainText("You can ask until");

  // Ask for a review of question 2, by the keyboard's way in: the dialog, the reason, the counter.
  const ask = reviews.getByRole("button", { name: "Ask for a review of question 2" });
  await ask.click();
  const askDialog = student.getByRole("dialog", { name: "Ask for a review of question 2" });
  const reason = askDialog.getByLabel("Why should it be looked at again?");
  await expect(reason).toBeFocused();
  // Escape closes it, and focus goes back to the question's button.
  await student.keyboard.press("Escape");
  await expect(askDialog).toBeHidden();
  await expect(ask).toBeFocused();
  await student.keyboard.press("Enter");
  await expect(reason).toBeFocused();
  // Empty: the dialog says what is missing, and nothing is sent.
  await askDialog.getByRole("button", { name: "Send request" }).click();
  await expect(askDialog.getByText("Say why the question should be looked at again.")).toBeVisible();
  const words = "I set up the equation in the second line: x + 3 = 7, so x = 4. Please look again.";
  await reason.fill(words);
  await expect(askDialog.getByText("Say why the question should be looked at again.")).toHaveCount(0);
  await expect(askDialog.getByText(`${2000 - words.length} of 2000 characters left.`)).toBeVisible();
  await expectNoAxeViolations(student, "the ask-for-a-review dialog");
  await screenshot(student, testInfo, "returns-journey-ask-390");
  await askDialog.getByRole("button", { name: "Send request" }).click();
  await expect(askDialog).toBeHidden();
  await expect(ask).toHaveCount(0); // an open request: no second one for the question
  await expect(reviews.getByRole("status")).toContainText("Your request about question 2 went to your teacher.");
  // Its button gone (the request is open), focus is on the confirmation, not lost to the page.
  await expect(student.locator(".review-requests__sent")).toBeFocused();
  const forQuestion2 = reviews.getByRole("list", { name: "Your requests for question 2" });
  await expect(forQuestion2).toContainText("Waiting for your teacher.");
  await expect(forQuestion2).toContainText(words);
  // A second request, about 1a, sent straight to the API: another marker will answer it while the teacher's page is open.
  const other = await student.request.post(`/api/me/scripts/${mine.id}/reviews`, { data: { question_id: ids.q1a, reason: "The method was right." } });
  expect(other.status(), await other.text()).toBe(201);
  const otherId = ((await other.json()) as { id: string }).id;
  await expectNoAxeViolations(student, "the student's script with a review request");
  await screenshot(student, testInfo, "returns-journey-asked-390", true);

  // The teacher: the marking screen's bar and the batch page link to the two open requests.
  await page.goto(`/batches/${batch.id}/mark?submission=${mine.id}`);
  await expect(page.locator(".marking__bar").getByRole("link", { name: "Review requests (2 open)" })).toBeVisible();
  await page.goto(`/batches/${batch.id}`);
  const link = page.getByRole("link", { name: "Review requests (2 open)" });
  await expect(link).toBeVisible();
  await followLink(page, link, new RegExp(`/batches/${batch.id}/reviews$`));
  await expect(page.getByRole("heading", { level: 1, name: "Review requests" })).toBeVisible();
  const cards = page.getByTestId("review-card");
  await expect(cards).toHaveCount(2);
  const q2 = page.getByRole("article", { name: `${STUDENT_NAME}, question 2` });
  await expect(q2.getByRole("definition").first()).toHaveText("1 / 4");
  await expect(q2).toContainText(words);
  await expectNoAxeViolations(page, "the review requests page");
  await screenshot(page, testInfo, "returns-journey-reviews-open-1280", true);

  // Meanwhile the 1a request is answered elsewhere: answering it here reloads the list with the server's sentence.
  const elsewhere = await page.request.post(`/api/exam/review-requests/${otherId}/answer`, { data: { outcome: "kept", reply: "Your method earns 2: the last line has an error." } });
  expect(elsewhere.status(), await elsewhere.text()).toBe(200);
  const q1a = page.getByRole("article", { name: `${STUDENT_NAME}, question 1a` });
  await q1a.getByLabel("Reply to the student").fill("Kept.");
  await q1a.getByRole("button", { name: "Send answer" }).click();
  await expect(page.getByRole("alert").filter({ hasText: "Your answer was not saved" })).toContainText("This review request has already been answered: reload to see the answer.");
  await expect(page.getByRole("region", { name: "Answered (1)" })).toContainText("Kept at 2");

  // Question 2: changed to 3, with a reply. A mark over the maximum is refused on the page first.
  await q2.getByLabel("Change the mark").check();
  const newMark = q2.getByLabel("New mark (out of 4)");
  await newMark.fill("5");
  const reply = "You are right: the equation is set up correctly. 3 marks.";
  await q2.getByLabel("Reply to the student").fill(reply);
  await q2.getByRole("button", { name: "Send answer" }).click();
  await expect(q2.getByText("The question is out of 4.")).toBeVisible();
  await newMark.fill("3");
  await q2.getByRole("button", { name: "Send answer" }).click();
  await expect(page.getByRole("status").filter({ hasText: "Answer sent" })).toContainText(`${STUDENT_NAME}, question 2: the mark changed from 1 to 3.`);
  await expect(page.getByRole("region", { name: "Answered (2)" })).toContainText("Changed from 1 to 3");
  await expect(page.getByRole("region", { name: /^Open/ })).toHaveCount(0);
  await expectNoAxeViolations(page, "the review requests page, answered");
  await screenshot(page, testInfo, "returns-journey-reviews-1280", true);
  // Nothing open: the batch page shows no link.
  await page.goto(`/batches/${batch.id}`);
  await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
  await expect(page.getByRole("link", { name: /^Review requests/ })).toHaveCount(0);

  // The student reloads: the new mark in the table and the total, and the answers.
  await student.reload();
  await expect(student.locator('tr[data-question="2"] [data-testid="awarded"]')).toHaveText("3");
  await expect(student.getByLabel("7 out of 9 marks")).toHaveText(/7\s*\/\s*9/);
  const answered = reviews.getByRole("list", { name: "Your requests for question 2" });
  await expect(answered).toContainText("Mark changed from 1 to 3 (out of 4)");
  await expect(answered).toContainText(`Your teacher: “${reply}”`);
  await expect(reviews.getByRole("list", { name: "Your requests for question 1a" })).toContainText("Mark kept at 2");
  // Reviews still open: question 2 can be asked about again now that its request is answered.
  await expect(reviews.getByRole("button", { name: "Ask for a review of question 2" })).toBeVisible();
  expect(await student.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
  await expectNoAxeViolations(student, "the student's script with the answers");
  await reviews.scrollIntoViewIfNeeded();
  await student.screenshot({ path: "e2e/artifacts/returns-journey-answered-390.png" });
  await testInfo.attach("returns-journey-answered-390", { path: "e2e/artifacts/returns-journey-answered-390.png", contentType: "image/png" });

  // Nothing the student's browser received names another student.
  expect(bodies.length).toBeGreaterThan(5);
  for (const name of otherNames) {
    const leaks = bodies.filter((body) => body.text.includes(name)).map((body) => body.url);
    expect(leaks, `responses naming ${name}`).toEqual([]);
  }
  await studentContext.close();
});
