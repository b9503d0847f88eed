import { type Browser, expect, type Page, test } from "@playwright/test";
import { DEMO_PASSWORD, STUDENT_EMAIL, expectNoAxeViolations, fillSignIn, screenshot, signIn } from "./helpers";
import { scriptPdf, threeQuestionTemplate } from "./papers";

/**
 * Annotations on the marking screen (issue 35, item 1): a teacher draws a pen stroke with the mouse,
 * puts a tick, a note and a stamp with the keyboard, moves one with the arrows and one with the mouse,
 * undoes, redoes and deletes; every step reaches the server, the mark names the question's shapes, a
 * reload shows them again; offline, an annotation waits in the browser and is saved once back online
 * after a reload. The student sees them on the released script. axe on the screen with the layer; the
 * screen at 1366×900 and on tablets.
 */

const STUDENT_NAME = "Amelia Hughes"; // student01 of the demo school (server/demo/school.ts)
const STAMP = "Correct method, sign error";

interface Stored {
  id: string;
  kind: string;
  page: number;
  geometry: { x?: number; y?: number; points?: number[][] };
  text: string | null;
  question_id: string | null;
}

let fixture: { batchId: string; submissionId: string; otherId: string; ids: { q1a: string; q1b: string; q2: string } };

async function annotationsOf(page: Page, submissionId: string): Promise<Stored[]> {
  const reply = await page.request.get(`/api/exam/submissions/${submissionId}/annotations`);
  expect(reply.ok(), await reply.text()).toBe(true);
  return ((await reply.json()) as { annotations: Stored[] }).annotations;
}

/** The marking screen on a script, its scan painted. */
async function openScript(page: Page, submissionId: string) {
  await page.goto(`/batches/${fixture.batchId}/mark?submission=${submissionId}`);
  await expect(page.locator(".scan-viewer canvas").first()).toBeVisible({ timeout: 60_000 });
  await expect(page.getByRole("toolbar", { name: "Annotation tools" })).toBeVisible();
}

test.beforeAll(async ({ browser }: { browser: Browser }) => {
  const page = await browser.newPage();
  await signIn(page);
  const title = `Annotated ${Date.now().toString(36)}`;
  const { template, ids } = await threeQuestionTemplate(page, title);
  const item = await page.request.post(`/api/exam/questions/${ids.q1b}/rubric-items`, { data: { text: STAMP, points: 1 } });
  expect(item.status(), await item.text()).toBe(201);
  const { classes } = (await (await page.request.get("/database/timetable/classes/teaching")).json()) as { classes: { id: string }[] };
  const batch = (await (await page.request.post("/api/exam/batches", { data: { template_id: template.id, class_id: classes[0]!.id, title } })).json()) as { id: string };
  const queue = (await (await page.request.get(`/api/exam/batches/${batch.id}/queue`)).json()) as { submissions: { id: string; student_id: string | null; student_name: string | null }[] };
  const mine = queue.submissions.find((submission) => submission.student_name === STUDENT_NAME)!;
  const other = queue.submissions.find((submission) => submission.student_name && submission.student_name !== STUDENT_NAME)!;
  for (const submission of [mine, other]) {
    const uploaded = await page.request.post(`/api/exam/batches/${batch.id}/scans`, {
      multipart: { student_id: submission.student_id!, file: { name: "scan.pdf", mimeType: "application/pdf", buffer: await scriptPdf(2, "Script") } },
    });
    expect(uploaded.ok(), await uploaded.text()).toBe(true);
  }
  fixture = { batchId: batch.id, submissionId: mine.id, otherId: other.id, ids };
  await page.close();
});

test("a teacher annotates with the mouse and the keyboard: move, undo, redo, delete, each saved; the mark names them; a reload shows them; the student sees them", async ({ page, browser }, testInfo) => {
  test.setTimeout(180_000);
  await page.setViewportSize({ width: 1366, height: 900 });
  await signIn(page);
  await openScript(page, fixture.submissionId);
  const markInput = page.locator("#mark-input");
  await expect(markInput).toBeFocused();

  // The keyboard: t puts a tick at question 1a's answer and focuses it; the arrows move it; Enter goes back to the mark.
  await page.keyboard.press("t");
  const tick = page.getByRole("button", { name: "Tick on question 1a" });
  await expect(tick).toBeFocused();
  await expect.poll(async () => (await annotationsOf(page, fixture.submissionId)).length).toBe(1);
  const placed = (await annotationsOf(page, fixture.submissionId))[0]!;
  await page.keyboard.press("ArrowLeft");
  await page.keyboard.press("Shift+ArrowDown");
  await expect
    .poll(async () => (await annotationsOf(page, fixture.submissionId))[0]!.geometry)
    .toEqual({ x: Math.round((placed.geometry.x! - 0.005) * 1e5) / 1e5, y: Math.round((placed.geometry.y! + 0.05) * 1e5) / 1e5 });
  await page.keyboard.press("Enter");
  await expect(markInput).toBeFocused();

  // A note, with the keyboard: n, the words, Enter.
  await page.keyboard.press("n");
  const noteInput = page.getByRole("textbox", { name: /A note on the scan/ });
  await expect(noteInput).toBeFocused();
  await noteInput.fill("Check the sign in line 2");
  await page.keyboard.press("Enter");
  await expect(page.getByRole("button", { name: "Comment on question 1a: Check the sign in line 2" })).toBeAttached();
  await expect(markInput).toBeFocused();

  // The mouse: a pen stroke across question 1a's answer on page 1.
  const toolbar = page.getByRole("toolbar", { name: "Annotation tools" });
  await toolbar.getByRole("button", { name: "Pen" }).click();
  const overlay = page.locator('[data-testid="annotation-overlay"][data-scan-page="1"]');
  // The page's middle in the middle of the frame: 0.25 to 0.65 of its height is in sight.
  await overlay.evaluate((element) => element.scrollIntoView({ block: "center" }));
  const box = (await overlay.boundingBox())!;
  await page.mouse.move(box.x + box.width * 0.3, box.y + box.height * 0.25);
  await page.mouse.down();
  for (let step = 1; step <= 20; step++) await page.mouse.move(box.x + box.width * (0.3 + step * 0.015), box.y + box.height * (0.25 + Math.sin(step / 3) * 0.03));
  await page.mouse.up();
  await expect(page.getByRole("button", { name: "Pen mark on question 1a" })).toBeAttached();
  await expect.poll(async () => (await annotationsOf(page, fixture.submissionId)).map((shape) => shape.kind).sort()).toEqual(["pen", "text", "tick"]);
  const pen = (await annotationsOf(page, fixture.submissionId)).find((shape) => shape.kind === "pen")!;
  expect(pen.question_id).toBe(fixture.ids.q1a);
  expect(pen.geometry.points!.length).toBeGreaterThanOrEqual(2);
  expect(pen.geometry.points![0]![0]).toBeCloseTo(0.3, 2);

  // Undo takes the stroke away (and from the server), redo brings it back.
  await page.keyboard.press("Control+z");
  await expect(page.getByRole("button", { name: "Pen mark on question 1a" })).toHaveCount(0);
  await expect.poll(async () => (await annotationsOf(page, fixture.submissionId)).map((shape) => shape.kind).sort()).toEqual(["text", "tick"]);
  await page.keyboard.press("Control+Shift+z");
  await expect(page.getByRole("button", { name: "Pen mark on question 1a" })).toBeAttached();
  await expect.poll(async () => (await annotationsOf(page, fixture.submissionId)).map((shape) => shape.kind).sort()).toEqual(["pen", "text", "tick"]);

  // A tick with the mouse on question 1b, then moved by dragging it with the select tool.
  await toolbar.getByRole("button", { name: "Tick" }).click();
  await page.mouse.click(box.x + box.width * 0.5, box.y + box.height * 0.6);
  await expect(page.getByRole("button", { name: "Tick on question 1b" })).toBeAttached();
  await toolbar.getByRole("button", { name: "Select" }).click();
  await page.mouse.move(box.x + box.width * 0.5, box.y + box.height * 0.6);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width * 0.55, box.y + box.height * 0.62, { steps: 5 });
  await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.65, { steps: 5 });
  await page.mouse.up();
  await expect
    .poll(async () => (await annotationsOf(page, fixture.submissionId)).find((shape) => shape.kind === "tick" && shape.question_id === fixture.ids.q1b)?.geometry.x ?? 0)
    .toBeCloseTo(0.6, 2);
  // Undo puts it back where it was put.
  await page.keyboard.press("Control+z");
  await expect
    .poll(async () => (await annotationsOf(page, fixture.submissionId)).find((shape) => shape.kind === "tick" && shape.question_id === fixture.ids.q1b)?.geometry.x ?? 0)
    .toBeCloseTo(0.5, 2);

  // A note's words changed: Enter on it, new words, Enter.
  await page.getByRole("button", { name: "Comment on question 1a: Check the sign in line 2" }).focus();
  await page.keyboard.press("Enter");
  const noteEdit = page.getByRole("textbox", { name: /Change the note's words/ });
  await expect(noteEdit).toBeFocused();
  await noteEdit.fill("Check the sign in line 3");
  await page.keyboard.press("Enter");
  await expect.poll(async () => (await annotationsOf(page, fixture.submissionId)).find((shape) => shape.kind === "text")?.text).toBe("Check the sign in line 3");
  // Undo brings the words back.
  await overlay.click({ position: { x: 5, y: box.height * 0.9 } });
  await page.keyboard.press("Control+z");
  await expect.poll(async () => (await annotationsOf(page, fixture.submissionId)).find((shape) => shape.kind === "text")?.text).toBe("Check the sign in line 2");

  // Delete: the tick on 1b, selected from the keyboard.
  await page.getByRole("button", { name: "Tick on question 1b" }).focus();
  await page.keyboard.press("Delete");
  await expect(page.getByRole("button", { name: "Tick on question 1b" })).toHaveCount(0);
  await expect.poll(async () => (await annotationsOf(page, fixture.submissionId)).length).toBe(3);

  // A marker who does not annotate still marks with two keys: the mark, then Enter. The mark names 1a's shapes.
  await markInput.focus();
  await page.keyboard.press("2");
  await page.keyboard.press("Enter");
  await expect.poll(async () => marksOf(page, fixture.submissionId).then((marks) => marks.find((mark) => mark.question_id === fixture.ids.q1a)?.annotation_shape_ids?.length ?? 0)).toBe(3);

  // 1b: a stamp of its rubric item from the keyboard (s, then Enter on the item).
  await expect(page.getByRole("heading", { name: "Question 1b" })).toBeVisible();
  await page.keyboard.press("s");
  const item = page.getByRole("toolbar", { name: "Annotation tools" }).getByRole("button", { name: STAMP, exact: true });
  await expect(item).toBeFocused();
  await page.keyboard.press("Enter");
  await expect(page.getByRole("button", { name: `Stamp on question 1b: ${STAMP}` })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect(markInput).toBeFocused();
  // h highlights 1b's answer.
  await page.keyboard.press("h");
  await expect(page.getByRole("button", { name: "Highlight on question 1b" })).toBeFocused();
  await page.keyboard.press("Escape");
  await expect.poll(async () => (await annotationsOf(page, fixture.submissionId)).length).toBe(5);
  await expect(toolbar.getByRole("status")).toHaveText("Annotations saved");

  await expectNoAxeViolations(page);
  await screenshot(page, testInfo, "annotation-tools-1366");

  // A reload shows them all again.
  await page.reload();
  await expect(page.locator(".scan-viewer canvas").first()).toBeVisible({ timeout: 60_000 });
  for (const name of ["Tick on question 1a", "Comment on question 1a: Check the sign in line 2", "Pen mark on question 1a", `Stamp on question 1b: ${STAMP}`, "Highlight on question 1b"]) {
    await expect(page.getByRole("button", { name })).toBeAttached();
  }

  // A highlight dragged out with the mouse over 1a's answer, then undone.
  await page.getByRole("toolbar", { name: "Annotation tools" }).getByRole("button", { name: "Highlight" }).click();
  await overlay.evaluate((element) => element.scrollIntoView({ block: "center" }));
  const again = (await overlay.boundingBox())!;
  await page.mouse.move(again.x + again.width * 0.2, again.y + again.height * 0.3);
  await page.mouse.down();
  await page.mouse.move(again.x + again.width * 0.7, again.y + again.height * 0.34, { steps: 6 });
  await page.mouse.up();
  await expect(page.getByRole("button", { name: "Highlight on question 1a" })).toBeAttached();
  await expect
    .poll(async () => (await annotationsOf(page, fixture.submissionId)).find((shape) => shape.kind === "highlight" && shape.question_id === fixture.ids.q1a)?.geometry ?? null)
    .not.toBeNull();
  const drawn = (await annotationsOf(page, fixture.submissionId)).find((shape) => shape.kind === "highlight" && shape.question_id === fixture.ids.q1a)!.geometry as { x: number; y: number; width: number; height: number };
  expect(drawn.x).toBeCloseTo(0.2, 2);
  expect(drawn.width).toBeCloseTo(0.5, 2);
  expect(drawn.height).toBeCloseTo(0.04, 2);
  await page.keyboard.press("Control+z");
  await expect(page.getByRole("button", { name: "Highlight on question 1a" })).toHaveCount(0);
  await expect.poll(async () => (await annotationsOf(page, fixture.submissionId)).length).toBe(5);

  // Released, the student reads them in words under the page.
  const released = await page.request.put(`/api/exam/batches/${fixture.batchId}/release`, { data: { scope: "all", reviews_until: null } });
  expect(released.ok(), await released.text()).toBe(true);
  const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
  const student = await context.newPage();
  await student.goto("/signin");
  await fillSignIn(student, STUDENT_EMAIL, DEMO_PASSWORD);
  await expect(student).toHaveURL(/\/timetables$/);
  await student.goto(`/my-work/${fixture.submissionId}`);
  for (const words of ["Tick on question 1a", "Comment on question 1a: Check the sign in line 2", "Pen mark on question 1a", `Stamp on question 1b: ${STAMP}`]) {
    await expect(student.getByText(words, { exact: true })).toBeAttached();
  }
  await expect(student.locator(".paper__page canvas").first()).toBeVisible({ timeout: 60_000 });
  await screenshot(student, testInfo, "annotation-tools-student-390", true);
  await context.close();
});

async function marksOf(page: Page, submissionId: string): Promise<{ question_id: string; annotation_shape_ids: string[] | null }[]> {
  const input = encodeURIComponent(JSON.stringify({ json: { submission_id: submissionId } }));
  const reply = await page.request.get(`/api/trpc/exam.marks.forSubmission?input=${input}`);
  expect(reply.ok(), await reply.text()).toBe(true);
  return ((await reply.json()) as { result: { data: { json: { marks: { question_id: string; annotation_shape_ids: string[] | null }[] } } } }).result.data.json.marks;
}

test("offline, an annotation waits in the browser: after a reload back online it is saved", async ({ page, context }) => {
  test.setTimeout(120_000);
  await page.setViewportSize({ width: 1366, height: 900 });
  await signIn(page);
  await openScript(page, fixture.otherId);
  await context.setOffline(true);
  await page.keyboard.press("x");
  await expect(page.getByRole("button", { name: "Cross on question 1a" })).toBeFocused();
  await page.keyboard.press("Enter");
  const toolbar = page.getByRole("toolbar", { name: "Annotation tools" });
  // Tried again, then said with the reason and a Retry.
  await expect(toolbar.getByRole("alert")).toContainText("An annotation is not saved: The server could not be reached", { timeout: 30_000 });
  expect(await page.evaluate(() => Object.keys(sessionStorage).filter((key) => key.startsWith("markbook:annotation-drafts:")).length)).toBe(1);
  await context.setOffline(false);
  await page.reload();
  await expect(page.getByRole("button", { name: "Cross on question 1a" })).toBeAttached({ timeout: 60_000 });
  await expect.poll(async () => (await annotationsOf(page, fixture.otherId)).map((shape) => shape.kind)).toEqual(["cross"]);
  await expect(toolbar.getByRole("status")).toHaveText("Annotations saved");
});

for (const viewport of [
  { width: 1024, height: 768 },
  { width: 820, height: 1180 },
]) {
  test(`the annotation tools on a tablet, ${viewport.width}×${viewport.height}`, async ({ page }, testInfo) => {
    await page.setViewportSize(viewport);
    await signIn(page);
    await openScript(page, fixture.submissionId);
    await expect(page.getByRole("button", { name: "Tick on question 1a" })).toBeAttached();
    await page.getByRole("toolbar", { name: "Annotation tools" }).getByRole("button", { name: "Pen" }).click();
    // Only while a drawing tool is in hand does a finger draw instead of scrolling.
    await expect(page.locator('[data-testid="annotation-overlay"]').first()).toHaveCSS("touch-action", "none");
    const select = page.getByRole("toolbar", { name: "Annotation tools" }).getByRole("button", { name: "Select" });
    await select.click();
    await expect(page.locator('[data-testid="annotation-overlay"]').first()).toHaveCSS("touch-action", "auto");
    // The tool in hand is filled (once its colours have faded in).
    await expect(select).toHaveCSS("color", "rgb(255, 255, 255)");
    await screenshot(page, testInfo, `annotation-tools-${viewport.width}x${viewport.height}`);
  });
}
