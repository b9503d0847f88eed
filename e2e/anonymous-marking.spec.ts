import { expect, test, type Response } from "@playwright/test";
import { expectNoAxeViolations, followLink, screenshot, signIn } from "./helpers";
import { PDFDocument, StandardFonts, rgb } from "pdf-lib";

/** A scanned script with a name written in the template's name box on page 1 and an answer on each page. */
async function namedScript(pages: number, nameBox: { page: number; x: number; y: number; width: number; height: number }, name: string): Promise<Buffer> {
  const document = await PDFDocument.create();
  const font = await document.embedFont(StandardFonts.HelveticaOblique);
  for (let index = 0; index < pages; index++) {
    const page = document.addPage([595, 842]);
    if (index + 1 === nameBox.page) {
      const x = 595 * (nameBox.x + nameBox.width * 0.05);
      const y = 842 * (1 - nameBox.y - nameBox.height / 2) - 8;
      page.drawText(name, { x, y, size: 22, font, color: rgb(0.1, 0.2, 0.6) });
    }
    page.drawText("x = 7", { x: 300, y: 500 - index * 40, size: 20, font, color: rgb(0.1, 0.2, 0.6) });
  }
  return Buffer.from(await document.save());
}

const DEMO_TEMPLATE = "Mathematics Paper 1 (Non-calculator), June 2026 mock";

test("a teacher marks an anonymous batch: Script N on every screen, the name box blurred, and no student's name in any response", async ({ page }, testInfo) => {
  test.setTimeout(150_000);
  await signIn(page);

  // 1. New batch with "Anonymous marking" ticked.
  await page.getByRole("link", { name: "Batches" }).click();
  await page.getByRole("button", { name: "New batch" }).first().click();
  const dialog = page.getByRole("dialog", { name: "New marking batch" });
  await dialog.getByLabel("Template").selectOption({ label: DEMO_TEMPLATE });
  await expect(dialog.getByText(/20 students will get a submission/)).toBeVisible();
  const title = `Anonymous mock ${Date.now().toString(36)}`;
  await dialog.getByLabel("Title (optional)").fill(title);
  await dialog.getByLabel("Anonymous marking").check();
  await screenshot(page, testInfo, "anonymous-new-batch-dialog");
  await dialog.getByRole("button", { name: "Create batch" }).click();
  await expect(page).toHaveURL(/\/batches\/[0-9a-f-]{36}$/);
  const batchId = page.url().split("/").pop()!;

  // The batch's students, read through REST by the test (page.request is not the page's traffic): their
  // names and ids are what must never reach the page.
  const batch = (await (await page.request.get(`/api/exam/batches/${batchId}/queue`)).json()) as { batch: { class_id: string; template_id: string; anonymous: boolean } };
  expect(batch.batch.anonymous).toBe(true);
  const roster = (await (await page.request.get(`/database/timetable/classes/${batch.batch.class_id}/students`)).json()) as { students: { id: string; full_name: string }[] };
  expect(roster.students).toHaveLength(20);
  const secrets = roster.students.flatMap((student) => [student.full_name, student.id]);
  const template = (await (await page.request.get(`/api/exam/templates/${batch.batch.template_id}`)).json()) as {
    page_count: number;
    name_box: { page: number; x: number; y: number; width: number; height: number };
  };
  expect(template.name_box).toBeTruthy();
  // Three scans matched in order, as a scanning tool sends them; each has a name written in the name box
  // (not one of the class: what the page receives is searched for the class's names).
  for (const number of [1, 2, 3]) {
    const uploaded = await page.request.post(`/api/exam/batches/${batchId}/scans`, {
      multipart: { file: { name: `scan-${number}.pdf`, mimeType: "application/pdf", buffer: await namedScript(template.page_count, template.name_box, "Ann Example") }, matching_method: "ordered" },
    });
    expect(uploaded.status()).toBe(200);
  }

  // 2. From here on, every response the page receives is kept.
  const bodies: Promise<{ url: string; text: string }>[] = [];
  const keep = (response: Response) => {
    bodies.push(
      response.body().then(
        (body) => ({ url: response.url(), text: body.toString("latin1") }),
        () => ({ url: response.url(), text: "" }), // a redirect or a cancelled prefetch has no body
      ),
    );
  };
  page.on("response", keep);

  await page.reload();
  await expect(page.getByRole("heading", { level: 1, name: title })).toBeVisible();
  await expect(page.locator(".batch__title-row").getByText("Anonymous marking")).toBeVisible();
  await expect(page.getByRole("switch", { name: "Anonymous marking" })).toBeChecked();
  const rows = page.getByTestId("queue-row");
  await expect(rows).toHaveCount(20);
  await expect(rows.getByRole("rowheader").first()).toHaveText(/^Script \d+$/);
  await expect(page.getByRole("columnheader", { name: "Script" })).toBeVisible();
  await expect(page.getByText("3 not marked")).toBeVisible();
  await screenshot(page, testInfo, "anonymous-batch-page", true);
  await expectNoAxeViolations(page);

  // 3. Marking: the heading is the script's number, the name box is blurred, the address holds ids only.
  await followLink(page, page.getByRole("link", { name: "Start marking" }), new RegExp(`/batches/${batchId}/mark\\?submission=[0-9a-f-]{36}$`));
  const heading = page.getByRole("heading", { level: 1 });
  await expect(heading).toHaveText(/^Script \d+$/);
  await expect(page.locator("canvas.react-pdf__Page__canvas").first()).toBeVisible();
  const cover = page.getByTestId("name-box-cover").first();
  await expect(cover).toBeVisible();
  await expect(cover).toHaveText("Name hidden: anonymous marking");
  expect(await cover.evaluate((element) => getComputedStyle(element).backdropFilter)).toContain("blur");
  // The frame shows the first answer area; the name box is scrolled into sight for the screenshot.
  await cover.scrollIntoViewIfNeeded();
  await screenshot(page, testInfo, "anonymous-marking-screen");
  const firstScript = (await heading.textContent())!.trim();
  const markInput = page.getByRole("textbox", { name: /^Mark out of/ });
  await expect(markInput).toBeFocused();
  for (let question = 0; question < 3; question++) {
    await page.keyboard.type("1");
    await page.keyboard.press("Enter");
  }
  await page.keyboard.press("]");
  await expect(heading).not.toHaveText(firstScript);
  await expect(heading).toHaveText(/^Script \d+$/);
  await expect(page.getByRole("region", { name: /^Scan of Script \d+$/ })).toBeVisible();

  // 4. Results: scripts by number, and the owner is offered "Reveal names".
  await page.goto(`/batches/${batchId}/results`);
  await expect(page.getByRole("heading", { level: 1, name: "Results" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: "Marks by script" })).toBeVisible();
  const resultRows = page.getByTestId("results-row");
  await expect(resultRows).toHaveCount(20);
  // "Script 1" must not find "Script 12".
  await expect(resultRows.filter({ hasText: new RegExp(`${firstScript}(?!\\d)`) }).getByTestId("results-total")).toHaveText("3");
  const reveal = page.getByRole("button", { name: "Reveal names" });
  await expect(reveal).toBeVisible();
  await screenshot(page, testInfo, "anonymous-results", true);

  // No response so far held a student's name or id: pages, RSC payloads, tRPC and REST replies, scans.
  const received = await Promise.all(bodies);
  expect(received.length).toBeGreaterThan(10);
  const leaks = received.flatMap(({ url, text }) => secrets.filter((secret) => text.includes(secret)).map((secret) => `${url}: ${secret}`));
  expect(leaks).toEqual([]);

  // The owner reveals the names: now, and only now, they arrive (the recording does see names when sent).
  const before = bodies.length;
  await reveal.click();
  await expect(page.getByRole("button", { name: "Hide names" })).toBeVisible();
  await expect(page.getByRole("heading", { level: 2, name: "Marks by student" })).toBeVisible();
  const someone = roster.students[0]!.full_name;
  await expect(resultRows.filter({ hasText: someone })).toHaveCount(1);
  const afterReveal = await Promise.all(bodies.slice(before));
  expect(afterReveal.some(({ text }) => text.includes(someone))).toBe(true);
  await screenshot(page, testInfo, "anonymous-results-revealed", true);
  page.off("response", keep);

  // 5. Printing: the scripts carry no names, and the owner is shown who gets which script.
  await page.goto(`/batches/${batchId}`);
  await page.getByRole("button", { name: "Print scripts" }).click();
  const print = page.getByRole("dialog", { name: "Print scripts" });
  await expect(print.getByText("Anonymous marking: no names are printed")).toBeVisible();
  await print.getByText("Who gets which script (20 students)").click();
  await expect(print.getByText(new RegExp(`^Script \\d+: ${someone}$`))).toBeVisible();
  await screenshot(page, testInfo, "anonymous-print-dialog");
});
