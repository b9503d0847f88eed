import crypto from "node:crypto";
import { expect, test, type Page } from "@playwright/test";
import { parse } from "csv-parse/sync";
import { PDFDocument, rgb } from "pdf-lib";
import { type PageTruth, penAnswers } from "../tests/support/pen-answers";
import { scanPile } from "../tests/support/scanned-pile";
import { tickPaper } from "../tests/support/tick-paper";
import { expectNoAxeViolations, mutate, screenshot, signIn } from "./helpers";

/**
 * Issue 36's "Done when": a template with a tick-box question and two written questions, a printed
 * batch, a pile with pen answers scanned as a copier would, uploaded; the tick-box marks appear without
 * a keystroke, the check screen resolves the undecided ones by keyboard, a group is confirmed at once,
 * the blanks are given 0 with one key, and the results' total equals the truth.
 */

const CLASS_SIZE = 20;
const TICK_MARKS = 2;
const RIGHT = "B";
/** The marks the test gives a written (not blank) answer, as a teacher would on the marking screen. */
const WRITTEN_MARK = 1;
/** Printed scripts (1-based, print order) with a box half filled in: the reader cannot tell, a person can (it was chosen). */
const HALF_FILLED = [2, 5];
const MM = 72 / 25.4;

interface Queue {
  batch: { title: string };
  submissions: { id: string; student_name: string | null; script_number: number; student_id: string | null }[];
}

async function json<T>(page: Page, url: string): Promise<T> {
  const response = await page.request.get(url);
  expect(response.status(), url).toBe(200);
  return (await response.json()) as T;
}

/** A tRPC query as the signed-in user (reading what the spec checks, where no REST face exists). */
async function query<T>(page: Page, path: string, input: unknown): Promise<T> {
  const response = await page.request.get(`/api/trpc/${path}?batch=1&input=${encodeURIComponent(JSON.stringify({ 0: { json: input } }))}`);
  expect(response.ok(), `${path}: ${await response.text()}`).toBe(true);
  return (await response.json())[0].result.data.json as T;
}

/**
 * A box half filled in (about 65 % of its inside, from the left): neither a tick (at most 55 %) nor a
 * box filled in whole (from 75 %), so the reader leaves the answer to a person. Drawn on the box that is
 * empty in the pen answers' truth; the person decides it was chosen, so it joins the answer.
 */
async function halfFill(pdf: Uint8Array, truth: PageTruth[], boxes: { label: string; x: number; y: number; width: number; height: number }[]) {
  const document = await PDFDocument.load(pdf, { updateMetadata: false });
  for (const printedPage of HALF_FILLED) {
    const page = document.getPage(printedPage - 1);
    const { width, height } = page.getSize();
    const area = truth[printedPage - 1]!.tickAreas[0]!;
    const free = area.boxes.find((box) => box.truth === "empty")!;
    const box = boxes.find((candidate) => candidate.label === free.label)!;
    const inset = 0.5 * MM;
    const left = box.x * width + inset;
    const top = box.y * height + inset;
    const inside = { width: box.width * width - 2 * inset, height: box.height * height - 2 * inset };
    page.drawRectangle({ x: left, y: height - top - inside.height, width: inside.width * 0.65, height: inside.height, color: rgb(0.1, 0.1, 0.15) });
    free.truth = "ticked";
    area.answer = area.boxes.filter((candidate) => candidate.truth === "ticked").map((candidate) => candidate.label);
  }
  return document.save();
}

test("ticks are marked from the scan, the undecided checked by keyboard, a group confirmed, blanks given 0, and the total is the truth", async ({ page }, testInfo) => {
  test.setTimeout(600_000);
  await page.setViewportSize({ width: 1366, height: 900 });
  await signIn(page);

  // 1. The paper: one page, question 1 four tick boxes (A–D, the right one B, 2 marks), question 2 a
  // ruled box (3 marks), question 3 an answer line (1 mark); the boxes as the template holds them.
  const paper = await tickPaper({ pages: 1, questionsPerPage: 1 });
  const layout = paper.pages[0]!;
  const tickArea = layout.tickAreas[0]!;
  const [ruled, line] = layout.writtenAreas;
  const upload = await page.request.post("/api/exam/files", { multipart: { file: { name: "science.pdf", mimeType: "application/pdf", buffer: Buffer.from(paper.bytes) } } });
  expect(upload.status()).toBe(201);
  const file = (await upload.json()) as { id: string; page_count: number };
  const title = `Answers journey ${Date.now().toString(36)}`;
  const template = await mutate<{ id: string }>(page, "exam.templates.create", { title, source_file_id: file.id, page_count: file.page_count });
  const ids = { q1: crypto.randomUUID(), q2: crypto.randomUUID(), q3: crypto.randomUUID() };
  const first = tickArea.boxes[0]!;
  const last = tickArea.boxes.at(-1)!;
  const margin = { x: 8 / 210, y: 2 / 297 };
  await mutate(page, "exam.templates.save", {
    template_id: template.id,
    body: {
      status: "ready",
      questions: [
        { id: ids.q1, parent_id: null, label: "1", order: 0, max_marks: TICK_MARKS, answer_type: "multiple_choice", mark_scheme: { type: "multiple_choice", correct: [RIGHT], allow_multiple: false }, spec_ref: null, is_container: false },
        { id: ids.q2, parent_id: null, label: "2", order: 1, max_marks: 3, answer_type: null, mark_scheme: null, spec_ref: null, is_container: false },
        { id: ids.q3, parent_id: null, label: "3", order: 2, max_marks: 1, answer_type: null, mark_scheme: null, spec_ref: null, is_container: false },
      ],
      response_areas: [
        {
          id: crypto.randomUUID(),
          question_id: ids.q1,
          page: 1,
          kind: "response",
          response_form: null,
          x: first.x - margin.x,
          y: first.y - margin.y,
          width: last.x + last.width - first.x + 2 * margin.x,
          height: first.height + 2 * margin.y,
          tick_boxes: tickArea.boxes.map(({ label, x, y, width, height, shape }) => ({ label, x, y, width, height, shape })),
        },
        { id: crypto.randomUUID(), question_id: ids.q2, page: 1, kind: "response", response_form: null, x: ruled!.x, y: ruled!.y, width: ruled!.width, height: ruled!.height },
        { id: crypto.randomUUID(), question_id: ids.q3, page: 1, kind: "response", response_form: null, x: line!.x, y: line!.y, width: line!.width, height: line!.height },
      ],
      boundaries: [],
    },
  });

  // 2. A batch for 10A, printed without spare copies (one script a student, in the roster's order).
  const { classes } = await json<{ classes: { id: string; name: string }[] }>(page, "/database/timetable/classes/teaching");
  const created = await page.request.post("/api/exam/batches", { data: { template_id: template.id, class_id: classes.find((c) => c.name === "10A Mathematics")!.id, title } });
  expect(created.status()).toBe(201);
  const batchId = ((await created.json()) as { id: string }).id;
  await page.goto(`/batches/${batchId}`);
  await page.getByRole("button", { name: "Print scripts" }).click();
  const dialog = page.getByRole("dialog", { name: "Print scripts" });
  await dialog.getByLabel("Spare copies").fill("0");
  const downloading = page.waitForEvent("download");
  await dialog.getByRole("button", { name: "Download PDF" }).click();
  const printed = new Uint8Array(Buffer.concat(await (await (await downloading).createReadStream()).toArray()));
  expect((await PDFDocument.load(printed)).getPageCount()).toBe(CLASS_SIZE);
  const queue = await json<Queue>(page, `/api/exam/batches/${batchId}/queue`);
  const roster = queue.submissions.filter((s) => s.student_name).sort((a, b) => a.student_name!.localeCompare(b.student_name!) || a.id.localeCompare(b.id));
  expect(roster).toHaveLength(CLASS_SIZE);

  // 3. The class answers in pen (ticks, crosses, pencil, corrections, two ticks, blank and written areas;
  // two boxes half filled in), the copier scans the pile (skewed, noisy, some upside down, shuffled).
  const answered = await penAnswers(printed, paper, 3636);
  const pdf = await halfFill(answered.pdf, answered.truth, tickArea.boxes);
  const pile = await scanPile(pdf, { seed: 3636, pagesPerScript: 1, scriptNumbers: roster.map((s) => s.script_number), dpi: 150, upsideDown: 3, duplicate: false, missing: false });
  // The truth of each student's script (print position = roster position).
  const truthOf = new Map(
    roster.map((submission, index) => {
      const page = answered.truth[index]!;
      const tick = page.tickAreas[0]!.answer;
      const written = { q2: page.writtenAreas.find((area) => area.id === ruled!.id)!.written, q3: page.writtenAreas.find((area) => area.id === line!.id)!.written };
      return [submission.student_name!, { submission, tick, written }];
    }),
  );
  const tickMarks = (answer: readonly string[]) => (answer.length === 1 && answer[0] === RIGHT ? TICK_MARKS : 0);
  const truthTotal = [...truthOf.values()].reduce((sum, script) => sum + tickMarks(script.tick) + (script.written.q2 ? WRITTEN_MARK : 0) + (script.written.q3 ? WRITTEN_MARK : 0), 0);

  await expect(page.getByRole("radio", { name: "By the codes printed on the pages" })).toBeChecked();
  await page.getByLabel("Choose PDF scans").setInputFiles({ name: "10A science.pdf", mimeType: "application/pdf", buffer: Buffer.from(pile.pdf) });
  const piles = page.getByRole("region", { name: "Scanned piles" });
  await expect(piles.getByText(`${CLASS_SIZE} of ${CLASS_SIZE} pages filed`)).toBeVisible({ timeout: 300_000 });

  // 4. The answers screen: question 1's marks appear from the ticks without a keystroke (the page polls while reading).
  await page.getByRole("link", { name: "Answers read from the scans" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Answers read from the scans" })).toBeVisible();
  await expect(page.getByText(/^Reading \d+ scripts?…$/)).toHaveCount(0, { timeout: 300_000 });
  const question1 = page.getByRole("region", { name: "Question 1", exact: true });
  await expect(question1.getByText(/from the ticks/).first()).toBeVisible({ timeout: 120_000 });
  await screenshot(page, testInfo, "answers-screen", true);
  await expectNoAxeViolations(page, "the answers screen");

  // 4b. The marking screen shows a reading beside its mark; u undoes an automatic mark (the field is then
  // empty), and the marker gives the mark themselves.
  type Answers = { questions: { question_id: string; groups: { scripts: { submission_id: string; script_label: string; marked_by: string | null; read_answer: string[] | null }[] }[] }[] };
  const read = await query<Answers>(page, "exam.answers.forBatch", { batch_id: batchId });
  const fromTicks = read.questions.find((question) => question.question_id === ids.q1)!.groups.flatMap((group) => group.scripts).find((script) => script.marked_by === "ticks")!;
  expect(fromTicks).toBeDefined();
  await page.goto(`/batches/${batchId}/mark?submission=${fromTicks.submission_id}`);
  const reading = page.getByRole("group", { name: "Read from the scan" });
  await expect(reading).toContainText(`Read from the ticks: ${fromTicks.read_answer!.join(" and ")}`);
  await expect(reading).toContainText("automatic mark");
  const markInput = page.getByRole("textbox", { name: /^Mark out of/ });
  const truthMarks = tickMarks(truthOf.get(fromTicks.script_label)!.tick);
  await expect(markInput).toHaveValue(String(truthMarks));
  await screenshot(page, testInfo, "answers-marking-reading");
  await page.keyboard.press("u");
  await expect(markInput).toHaveValue("");
  await expect(reading).not.toContainText("automatic mark");
  await markInput.focus();
  await page.keyboard.type(String(truthMarks));
  await page.keyboard.press("Enter");
  await expect.poll(async () => (await query<{ marks: { question_id: string; awarded_marks: number | null }[] }>(page, "exam.marks.forSubmission", { submission_id: fromTicks.submission_id })).marks.find((mark) => mark.question_id === ids.q1)?.awarded_marks).toBe(truthMarks);
  await page.goto(`/batches/${batchId}/answers`);
  await expect(page.getByRole("heading", { level: 1, name: "Answers read from the scans" })).toBeVisible();

  // 5. The check screen: each undecided answer decided by keyboard (its letters, or 0), Enter to the next.
  const checkLink = page.getByRole("link", { name: /^Check \d+ undecided answers?$/ });
  await expect(checkLink).toBeVisible();
  const undecided = Number(/\d+/.exec((await checkLink.textContent())!)![0]);
  expect(undecided).toBeGreaterThanOrEqual(1);
  await checkLink.click();
  await expect(page.getByRole("heading", { level: 1, name: "Check undecided answers" })).toBeVisible();
  for (let index = 1; index <= undecided; index++) {
    await expect(page.getByText(`${index} of ${undecided}`, { exact: true })).toBeVisible();
    const heading = page.getByRole("heading", { level: 2, name: /, question 1$/ });
    await expect(heading).toBeFocused();
    const name = (await heading.textContent())!.replace(/, question 1$/, "");
    const crop = page.getByRole("img", { name: `${name}, question 1's boxes` });
    await expect.poll(() => crop.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0), { timeout: 30_000 }).toBe(true);
    if (index === 1) {
      await screenshot(page, testInfo, "answers-check");
      await expectNoAxeViolations(page, "the check screen");
    }
    const answer = truthOf.get(name)!.tick;
    if (answer.length === 0) await page.keyboard.press("0");
    for (const label of answer) await page.keyboard.press(label.toLowerCase());
    for (const label of answer) await expect(page.getByRole("button", { name: `Box ${label}`, pressed: true })).toBeVisible();
    await page.keyboard.press("Enter");
  }
  await expect(page.getByRole("heading", { name: "Every answer is decided" })).toBeVisible();
  await page.keyboard.press("Escape");
  await expect(page).toHaveURL(new RegExp(`/batches/${batchId}/answers$`));

  // 6. A group confirmed at once: the largest group of question 1 not yet confirmed.
  const confirm = question1.getByRole("button", { name: /^Confirm group: / }).first();
  await expect(confirm).toBeVisible();
  const groupName = (await confirm.getAttribute("aria-label"))!.replace("Confirm group: ", "");
  const groupSize = Number(/^(\d+) script/.exec(groupName)![1]);
  expect(groupSize).toBeGreaterThan(1);
  await confirm.click();
  await expect(page.getByRole("status").filter({ hasText: new RegExp(`^Question 1: ${groupSize} scripts marked`) })).toBeVisible();
  await expect(question1.getByRole("region", { name: `Question 1: ${groupName}` }).getByText("Confirmed")).toBeVisible();

  // 7. The blanks of questions 2 and 3: one key each (z, with the question in focus).
  let zeroed = 0;
  for (const label of ["2", "3"]) {
    const question = page.getByRole("region", { name: `Question ${label}`, exact: true });
    const giveZero = question.getByRole("button", { name: /^Give all \d+ blanks? 0/ });
    if ((await giveZero.count()) === 0) continue;
    const blanks = Number(/\d+/.exec((await giveZero.textContent())!)![0]);
    await question.getByRole("heading", { name: `Question ${label}` }).click();
    await page.keyboard.press("z");
    await expect(page.getByRole("status").filter({ hasText: `Question ${label}: ${blanks} blank answer${blanks === 1 ? "" : "s"} given 0.` })).toBeVisible();
    await expect(giveZero).toHaveCount(0);
    zeroed += blanks;
  }
  expect(zeroed, "the pen answers leave some written areas blank").toBeGreaterThan(0);
  await screenshot(page, testInfo, "answers-screen-decided", true);

  for (const [name, size] of [
    ["tablet", { width: 1024, height: 768 }],
    ["phone", { width: 390, height: 844 }],
  ] as const) {
    await page.setViewportSize(size);
    await expect(page.getByRole("heading", { level: 1, name: "Answers read from the scans" })).toBeVisible();
    expect(await page.evaluate(() => document.documentElement.scrollWidth), `no sideways scroll (${name})`).toBeLessThanOrEqual(size.width);
    await screenshot(page, testInfo, `answers-screen-${name}`, true);
  }
  await page.setViewportSize({ width: 1366, height: 900 });

  // 8. The written answers as a teacher marks them (the test's own marks), and whatever the reader could
  // not call blank for certain: a 0 where nothing was written. No blank was read as written or the reverse
  // where the truth says otherwise (the marks so far are checked by the total).
  for (const { submission, written } of truthOf.values()) {
    const { marks } = await query<{ marks: { question_id: string; awarded_marks: number | null }[] }>(page, "exam.marks.forSubmission", { submission_id: submission.id });
    for (const [questionId, isWritten] of [
      [ids.q2, written.q2],
      [ids.q3, written.q3],
    ] as const) {
      const recorded = marks.find((mark) => mark.question_id === questionId);
      if (!isWritten) {
        // A blank given 0 by z stays; one the reader was unsure of gets the teacher's 0.
        if (recorded?.awarded_marks === 0) continue;
        expect(recorded, "a written answer the reader could not call blank is never marked by it").toBeUndefined();
      } else {
        expect(recorded, `${submission.student_name}: a written answer was given 0 as a blank`).toBeUndefined();
      }
      await mutate(page, "exam.marks.upsert", { mark_id: crypto.randomUUID(), body: { submission_id: submission.id, question_id: questionId, awarded_marks: isWritten ? WRITTEN_MARK : 0, confirmed: true } });
    }
  }

  // 9. The results, read back from the CSV: every script marked, the total the truth's.
  const csv = await page.request.get(`/api/exam/batches/${batchId}/export/csv`);
  expect(csv.status()).toBe(200);
  const [header, ...rows]: string[][] = parse(Buffer.from(await csv.body()).toString("utf8"), { bom: true });
  expect(header!.slice(4, 6)).toEqual(["State", "Total"]);
  expect(rows).toHaveLength(CLASS_SIZE);
  expect(rows.map((cells) => `${cells[2]} ${cells[1]}: ${cells[4]} ${cells[5]}`).filter((row) => !row.includes(": marked ")), "every script marked").toEqual([]);
  const total = rows.reduce((sum, cells) => sum + Number(cells[5]), 0);
  testInfo.annotations.push({ type: "answers journey", description: `${undecided} undecided answers checked; total ${total} (truth ${truthTotal})` });
  expect(total).toBe(truthTotal);
});
