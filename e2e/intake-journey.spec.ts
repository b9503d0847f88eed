import { expect, test, type Page } from "@playwright/test";
import { PDFDocument, StandardFonts, rgb } from "pdf-lib";
import { scanPile } from "../tests/support/scanned-pile";
import { expectNoAxeViolations, screenshot, signIn } from "./helpers";

/**
 * The class-set journey of issue 18: a teacher prints a batch with spare copies, the class writes the
 * paper (two students lose theirs and write on the spare copies), the copier scans the whole pile as
 * one PDF (shuffled, skewed, some pages upside down, one twice), the teacher uploads it, watches it
 * read, identifies the two spare copies by keyboard and marks a script whose pages lay in three places.
 */

const DEMO_TEMPLATE = "Mathematics Paper 1 (Non-calculator), June 2026 mock";
const PAGES = 4;

interface Queue {
  submissions: { id: string; student_name: string | null; script_number: number }[];
}

async function json<T>(page: Page, url: string): Promise<T> {
  const response = await page.request.get(url);
  expect(response.status(), url).toBe(200);
  return (await response.json()) as T;
}

/**
 * The printed PDF as the class hands it in: the scripts at these positions of the print (1-based), spare
 * copies filled in by hand (names by position).
 */
async function handedIn(printed: Uint8Array, positions: number[], writtenNames: Map<number, string>, nameBox: { x: number; y: number; width: number; height: number }) {
  const source = await PDFDocument.load(printed);
  const pile = await PDFDocument.create();
  const font = await pile.embedFont(StandardFonts.HelveticaOblique);
  for (const script of positions) {
    const copies = await pile.copyPages(source, Array.from({ length: PAGES }, (_, page) => (script - 1) * PAGES + page));
    copies.forEach((copy, index) => {
      pile.addPage(copy);
      const name = writtenNames.get(script);
      if (index === 0 && name) {
        // Written in the name box, as a student would on a spare copy.
        const { width, height } = copy.getSize();
        copy.drawText(name, { x: (nameBox.x + 0.3) * width, y: height * (1 - nameBox.y) - 0.06 * height, size: 22, font, color: rgb(0.1, 0.1, 0.35) });
      }
    });
  }
  return pile.save();
}

test("a printed class set, scanned as one shuffled pile, is filed, identified by keyboard and marked", async ({ page }, testInfo) => {
  test.setTimeout(600_000);
  await signIn(page);
  const { templates } = await json<{ templates: { id: string; title: string; status: string }[] }>(page, "/api/exam/templates");
  const template = templates.find((t) => t.title === DEMO_TEMPLATE && t.status === "ready")!;
  const { name_box: nameBox } = await json<{ name_box: { x: number; y: number; width: number; height: number } | null }>(page, `/api/exam/templates/${template.id}`);
  expect(nameBox).not.toBeNull();
  const { classes } = await json<{ classes: { id: string; name: string }[] }>(page, "/database/timetable/classes/teaching");
  const title = `Class set ${Date.now().toString(36)}`;
  const created = await page.request.post("/api/exam/batches", { data: { template_id: template.id, class_id: classes.find((c) => c.name === "10A Mathematics")!.id, title } });
  expect(created.status()).toBe(201);
  const batchId = ((await created.json()) as { id: string }).id;

  // 1. Print: 20 students in roster (name) order, each with their script's number (1–20, shuffled),
  // then 2 spare copies, numbered 21 and 22.
  await page.goto(`/batches/${batchId}`);
  await page.getByRole("button", { name: "Print scripts" }).click();
  const dialog = page.getByRole("dialog", { name: "Print scripts" });
  await expect(dialog.getByLabel("Spare copies")).toHaveValue("2");
  const downloading = page.waitForEvent("download");
  await dialog.getByRole("button", { name: "Download PDF" }).click();
  const printed = new Uint8Array(Buffer.concat(await (await (await downloading).createReadStream()).toArray()));
  expect((await PDFDocument.load(printed)).getPageCount()).toBe(22 * PAGES);

  const queue = await json<Queue>(page, `/api/exam/batches/${batchId}/queue`);
  const roster = queue.submissions.filter((s) => s.student_name).sort((a, b) => a.student_name!.localeCompare(b.student_name!) || a.id.localeCompare(b.id));
  expect(roster).toHaveLength(20);
  // The third and seventh students lost their scripts and wrote on spare copies 21 and 22 (the spares
  // are the last two of the print, so their positions are their numbers).
  const lost = new Map([
    [21, roster[2]!.student_name!],
    [22, roster[6]!.student_name!],
  ]);
  const numberAtPosition = [...roster.map((submission) => submission.script_number), 21, 22];
  const positions = [...Array.from({ length: 20 }, (_, index) => index + 1).filter((n) => n !== 3 && n !== 7), 21, 22];
  const scripts = positions.map((position) => numberAtPosition[position - 1]!);
  const pile = await scanPile(await handedIn(printed, positions, lost, nameBox!), {
    seed: 2026,
    pagesPerScript: PAGES,
    scriptNumbers: scripts,
    dpi: 150,
    upsideDown: 4,
    duplicate: true,
    missing: false,
  });

  // 2. Upload the pile: printed scripts are matched by their codes by default.
  await expect(page.getByRole("radio", { name: "By the codes printed on the pages" })).toBeChecked();
  await page.getByLabel("Choose PDF scans").setInputFiles({ name: "10A pile.pdf", mimeType: "application/pdf", buffer: Buffer.from(pile.pdf) });
  const piles = page.getByRole("region", { name: "Scanned piles" });
  await expect(piles).toBeVisible({ timeout: 60_000 });
  await expect(piles.getByText(/Reading page \d+ of \d+|Waiting to be read|Filing the pages/)).toBeVisible({ timeout: 60_000 });
  await screenshot(page, testInfo, "intake-reading", true);
  // One page was scanned twice: kept once.
  await expect(piles.getByText(`${pile.truth.length - 1} of ${pile.truth.length} pages filed; 1 scanned twice`)).toBeVisible({ timeout: 300_000 });
  await expect(piles.getByText("1 page set aside")).toBeVisible();
  await screenshot(page, testInfo, "intake-filed", true);
  await expectNoAxeViolations(page);

  // 3. Identify the two spare copies by keyboard: a few letters of the name written on each, then Enter.
  await page.getByRole("link", { name: "Identify 2 scripts" }).click();
  await expect(page.getByRole("heading", { name: "Identify scripts" })).toBeVisible();
  const keystrokes: number[] = [];
  for (let identified = 0; identified < 2; identified++) {
    const field = page.getByRole("combobox", { name: /^Whose script is Script (21|22)\?$/ });
    await expect(field).toBeFocused();
    const label = (await page.locator("label").filter({ hasText: "Whose script" }).textContent())!;
    const script = Number(/Script (\d+)/.exec(label)![1]);
    const name = lost.get(script)!;
    const crop = page.getByRole("img", { name: `The name written on Script ${script}` });
    await expect(crop).toBeVisible();
    // The crop is cut by the imaging worker: on a busy machine the picture arrives after the element shows.
    await expect.poll(() => crop.evaluate((image: HTMLImageElement) => image.complete && image.naturalWidth > 0), { timeout: 30_000 }).toBe(true);
    if (identified === 0) await screenshot(page, testInfo, "intake-identify");
    // The fewest letters of the surname that leave this student first: what a teacher would type.
    const surname = name.split(" ").at(-1)!;
    let typed = "";
    for (const letter of surname.toLowerCase()) {
      typed += letter;
      await page.keyboard.type(letter);
      const first = page.getByRole("option").first();
      if ((await first.textContent())?.startsWith(name)) break;
    }
    await expect(page.getByRole("option", { selected: true })).toContainText(name);
    await page.keyboard.press("Enter");
    keystrokes.push(typed.length + 1);
    await expect(page.getByRole("listitem").filter({ hasText: `Script ${script} → ${name}` })).toBeVisible();
  }
  await expect(page.getByRole("heading", { name: "Every script is identified" })).toBeVisible();
  const median = [...keystrokes].sort((a, b) => a - b)[Math.floor(keystrokes.length / 2)]!;
  testInfo.annotations.push({ type: "identify keystrokes per script", description: `${keystrokes.join(", ")} (median ${median})` });
  console.log(`identify: keystrokes per script ${keystrokes.join(", ")}, median ${median}`);

  // 4. Mark a script whose pages lay in three or more places of the pile.
  const runsOf = (script: number) => {
    const positions = pile.truth.flatMap((truth, index) => (truth.kind === "printed" && truth.scriptNumber === script ? [index] : [])).sort((a, b) => a - b);
    return positions.filter((position, index) => index === 0 || position !== positions[index - 1]! + 1).length;
  };
  const scattered = scripts.filter((n) => n <= 20).find((n) => runsOf(n) >= 3)!;
  expect(scattered).toBeDefined();
  const student = roster.find((submission) => submission.script_number === scattered)!;
  await page.goto(`/batches/${batchId}/mark?submission=${student.id}`);
  await expect(page.getByRole("heading", { level: 1, name: student.student_name! })).toBeVisible();
  await expect(page.locator("canvas.react-pdf__Page__canvas").first()).toBeVisible();
  const markInput = page.getByRole("textbox", { name: /^Mark out of/ });
  await expect(markInput).toBeFocused();
  await page.keyboard.type("1");
  await page.keyboard.press("Enter");
  await screenshot(page, testInfo, "intake-marking");
  // The typed mark is the teacher's; the demo paper's multiple-choice question may carry a mark read from its boxes beside it.
  const marksOf = async () =>
    (
      await json<{ result: { data: { json: { marks: { question_id: string; awarded_marks: number | null; marked_by: string }[] } } } }>(
        page,
        `/api/trpc/exam.marks.forSubmission?input=${encodeURIComponent(JSON.stringify({ json: { submission_id: student.id } }))}`,
      )
    ).result.data.json.marks;
  await expect.poll(async () => (await marksOf()).filter((mark) => mark.marked_by === "teacher").map((mark) => mark.awarded_marks)).toEqual([1]);
  const scan = await page.request.get(`/api/exam/submissions/${student.id}/scan`);
  expect(scan.status()).toBe(200);
  expect((await PDFDocument.load(await scan.body())).getPageCount()).toBe(PAGES);

  // 5. Every page and where it went; the page scanned twice moved by hand into a script of its own.
  await page.goto(`/batches/${batchId}/pages`);
  await expect(page.getByTestId("scan-page-row")).toHaveCount(pile.truth.length);
  const duplicateRow = page.getByTestId("scan-page-row").filter({ hasText: "Scanned twice" });
  await expect(duplicateRow).toHaveCount(1);
  await duplicateRow.getByRole("button", { name: /^Move / }).click();
  const moveDialog = page.getByRole("dialog", { name: "Move a page" });
  await moveDialog.getByLabel("Move to").selectOption({ label: "A new script of its own (to identify)" });
  await moveDialog.getByLabel("As page").fill("x");
  await moveDialog.getByRole("button", { name: "Move page" }).click();
  await expect(moveDialog.getByText("Enter a page number from 1 to 999, or leave it empty.")).toBeVisible();
  await moveDialog.getByLabel("As page").fill("");
  await moveDialog.getByRole("button", { name: "Move page" }).click();
  await expect(moveDialog).toBeHidden();
  await expect(page.getByRole("status").filter({ hasText: /is now page 1 of A script without a student|is now page 1 of Script/ })).toBeVisible();
  await expect(page.getByTestId("scan-page-row").filter({ hasText: "Scanned twice" })).toHaveCount(0);
  await screenshot(page, testInfo, "intake-pages");
  await expectNoAxeViolations(page);
});
