import crypto from "node:crypto";
import { expect, type Page, test } from "@playwright/test";
import { expectNoAxeViolations, screenshot, signIn } from "./helpers";
import { scriptPdf } from "./papers";

type Question = { id: string; label: string; max_marks: number | null; is_container: boolean };

const HEAD_EMAIL = "head@northfield.example";
/** Invited as the batch's marker: the batch's marking is shared, and the head is none of its markers. */
const COLLEAGUE = "James Patel";
const FIRST_COMMENT = `first-mark-comment-${crypto.randomBytes(4).toString("hex")}`;

test("moderation: the owner picks a sample of a shared batch, the head second-marks it blind by keyboard, sets a final mark and signs the batch off", async ({ browser, page }, testInfo) => {
  test.setTimeout(180_000);
  // The teacher: a batch of three scripts, first-marked on two questions.
  await signIn(page);
  const { papers } = (await (await page.request.get("/api/trpc/exam.catalogue.list").then((r) => r.json())).result.data.json) as { papers: { id: string }[] };
  const title = `Moderated ${Date.now().toString(36)}`;
  const template = (await (await page.request.post("/api/exam/templates", { data: { title, exam_id: papers[0]!.id } })).json()) as { id: string; page_count: number };
  const canvas = (await (await page.request.get(`/api/exam/templates/${template.id}`)).json()) as { questions: Question[] };
  const leaves = canvas.questions.filter((question) => !question.is_container && (question.max_marks ?? 0) >= 2).slice(0, 2);
  // The second question has a rubric: its second marks are made by applying items with their keys.
  for (const body of [
    { text: "Method", points: 1 },
    { text: "Answer", points: 1 },
  ]) {
    const item = await page.request.post(`/api/exam/questions/${leaves[1]!.id}/rubric-items`, { data: body });
    expect(item.status()).toBe(201);
  }
  const { classes } = (await (await page.request.get("/database/timetable/classes/teaching")).json()) as { classes: { id: string }[] };
  const batch = await page.request.post("/api/exam/batches", { data: { template_id: template.id, class_id: classes[0]!.id, title } });
  const batchId = ((await batch.json()) as { id: string }).id;
  const scripts: string[] = [];
  for (const who of ["One", "Two", "Three"]) {
    const uploaded = await page.request.post(`/api/exam/batches/${batchId}/scans`, {
      multipart: { file: { name: "script.pdf", mimeType: "application/pdf", buffer: await scriptPdf(template.page_count ?? 8, who) }, matching_method: "ordered" },
    });
    expect(uploaded.ok()).toBe(true);
    scripts.push(((await uploaded.json()) as { id: string }).id);
  }
  for (const submissionId of scripts) {
    for (const question of leaves) {
      const marked = await page.request.put(`/api/exam/marks/${crypto.randomUUID()}`, {
        data: { submission_id: submissionId, question_id: question.id, awarded_marks: 2, comment: FIRST_COMMENT, confirmed: true },
      });
      expect(marked.status()).toBe(200);
    }
  }

  // The first marking's annotations: a tick on every script (the blind second marker never sees them).
  const firstTicks: string[] = [];
  for (const submissionId of scripts) {
    const id = crypto.randomUUID();
    const ticked = await page.request.put(`/api/exam/annotations/${id}`, { data: { submission_id: submissionId, page: 1, kind: "tick", geometry: { x: 0.5, y: 0.5 } } });
    expect(ticked.status(), await ticked.text()).toBe(200);
    firstTicks.push(id);
  }

  // A colleague who is neither the owner, a marker nor a head (before the owner invites them) reads the batch: no upload, archive, attendance or marking controls.
  const colleagueContext = await browser.newContext();
  const colleague = await colleagueContext.newPage();
  await signIn(colleague, "teacher2@northfield.example");
  await colleague.goto(`/batches/${batchId}`);
  await expect(colleague.getByText("This batch is another teacher's: you can follow its progress and read its results.")).toBeVisible();
  await expect(colleague.getByRole("heading", { name: "Upload scans" })).toHaveCount(0);
  await expect(colleague.getByRole("button", { name: "Archive batch" })).toHaveCount(0);
  await expect(colleague.getByRole("button", { name: /absent/ })).toHaveCount(0);
  await expect(colleague.getByRole("link", { name: /^Mark / })).toHaveCount(0);
  await screenshot(colleague, testInfo, "batch-read-only-colleague");
  await colleague.goto(`/batches/${batchId}/mark?submission=${scripts[0]}`);
  await expect(colleague.getByText("This batch is another teacher's")).toBeVisible();
  await expect(colleague.getByRole("textbox", { name: /^Mark/ })).toHaveCount(0);
  await colleagueContext.close();

  // The owner shares the marking with a colleague (issue 32: a head's final mark on a shared batch was a 500).
  await page.goto(`/batches/${batchId}`);
  const markersCard = page.getByRole("region", { name: "Markers" });
  await markersCard.getByLabel("Invite a colleague").selectOption({ label: COLLEAGUE });
  await markersCard.getByRole("button", { name: "Invite" }).click();
  await expect(markersCard.getByRole("cell", { name: COLLEAGUE, exact: true })).toBeVisible();

  // The owner picks the whole batch as the sample, with no tolerance.
  await page.getByRole("link", { name: "Moderation" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Moderation" })).toBeVisible();
  await page.getByLabel("Share of the marked scripts (%)").fill("100");
  await page.getByLabel("Tolerance (marks)").fill("0");
  await page.getByRole("button", { name: "Pick the sample" }).click();
  await expect(page.getByText("3 scripts in the sample.")).toBeVisible();
  // The owner gave the first marks: nothing to second-mark; no sign-off button for a teacher.
  await expect(page.getByText(/Nothing to second-mark/)).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign the batch off" })).toHaveCount(0);

  // The department head second-marks, blind: no response the page receives holds a first mark's comment.
  const headContext = await browser.newContext();
  const head = await headContext.newPage();
  const bodies: Promise<string>[] = [];
  head.on("response", (response) => bodies.push(response.body().then((body) => body.toString("utf8"), () => "")));
  await signIn(head, HEAD_EMAIL);
  await head.goto(`/batches/${batchId}/moderation`);
  const secondMarking = head.locator(".card").filter({ has: head.getByRole("heading", { name: "Your second marking" }) });
  await expect(secondMarking.getByText("0 of 6 questions second-marked, on 3 scripts.")).toBeVisible();
  await head.getByRole("link", { name: "Start second marking" }).click();
  await expect(head).toHaveURL(/\/moderation\/second-marking/);

  // The marking screen's flow: the scan beside the question, digits type the mark, Enter saves and moves on.
  const mark = head.getByRole("textbox", { name: /^Mark/ });
  await expect(head.getByRole("heading", { level: 2, name: `Question ${leaves[0]!.label}` })).toBeVisible();
  await expect(head.getByRole("region", { name: /^Scan of Script \d+$/ }).locator("canvas").first()).toBeVisible({ timeout: 60_000 });
  await expect(mark).toBeFocused();
  await expect(head.getByText("Blind second marking")).toBeVisible();
  // Above the maximum: the error is the mark's, and goes as soon as the mark is valid.
  const max = leaves[0]!.max_marks!;
  await head.keyboard.type(String(max + 1));
  await head.keyboard.press("Enter");
  await expect(head.getByRole("alert").filter({ hasText: `At most ${max} marks for this question.` })).toBeVisible();
  await expect(mark).toHaveAttribute("aria-invalid", "true");
  await head.keyboard.press("Backspace");
  await head.keyboard.type("0");
  await expect(head.getByText(`At most ${max} marks for this question.`)).toHaveCount(0);
  await expect(mark).not.toHaveAttribute("aria-invalid", "true");
  await screenshot(head, testInfo, "moderation-second-marking");
  await expectNoAxeViolations(head, "the second-marking screen");
  // The head's own annotations, on the blind layer: the first marker's tick is not shown; t puts the head's own.
  await expect(head.getByRole("toolbar", { name: "Annotation tools" })).toBeVisible();
  await expect(head.getByRole("button", { name: /^Tick on / })).toHaveCount(0);
  await head.keyboard.press("t");
  await expect(head.getByRole("button", { name: `Tick on question ${leaves[0]!.label}` })).toBeFocused();
  await head.keyboard.press("Escape");
  const layerCount = async (who: Page, layer: string) => {
    let count = 0;
    for (const submissionId of scripts) {
      const listed = (await (await who.request.get(`/api/exam/submissions/${submissionId}/annotations?layer=${layer}`)).json()) as { annotations: unknown[] };
      count += listed.annotations.length;
    }
    return count;
  };
  await expect.poll(() => layerCount(head, "second_marking")).toBe(1);
  expect(await layerCount(page, "second_marking")).toBe(0);
  expect(await layerCount(page, "marking")).toBe(scripts.length);
  await mark.focus();
  await head.keyboard.press("Enter");
  // One difference: the first script's first question got 0 instead of 2; every other question 2.
  for (let index = 1; index < 6; index++) {
    await expect(head.getByRole("heading", { level: 2, name: `Question ${leaves[index % 2]!.label}` })).toBeVisible();
    await expect(mark).toBeFocused();
    if (index % 2 === 1) {
      // Keys 1 and 2 apply the rubric's two items: the mark is their sum.
      await head.keyboard.press("1");
      await head.keyboard.press("2");
      await expect(head.getByRole("button", { name: /Method/, pressed: true })).toBeVisible();
      await expect(head.getByText("Items 1 and 2: 2.")).toBeVisible();
    } else {
      await head.keyboard.type("2");
    }
    await expect(mark).toHaveValue("2");
    await head.keyboard.press("Enter");
  }
  await expect(head.getByText("That was the last script of the sample")).toBeVisible();
  await head.getByRole("link", { name: "Back to the moderation" }).click();
  await expect(secondMarking.getByText("6 of 6 questions second-marked, on 3 scripts.")).toBeVisible();
  const received = await Promise.all(bodies);
  expect(received.some((body) => body.includes(FIRST_COMMENT))).toBe(false);
  // Nor any of the first marking's annotations.
  expect(received.some((body) => firstTicks.some((id) => body.includes(id)))).toBe(false);

  // Agreement and the difference to reconcile.
  const agreement = head.getByRole("table", { name: "Agreement per question" });
  await expect(agreement.getByRole("row")).toHaveCount(3);
  // First marks 2, 2, 2 against 0, 2, 2 on one question: a mean difference of −2/3; the other question all 2s, no kappa.
  await expect(agreement).toContainText("−0.67");
  await expect(agreement).toContainText("Every mark is the same");
  const differences = head.getByRole("table", { name: "Differences above the tolerance" });
  await expect(differences.getByRole("row")).toHaveCount(2);
  await screenshot(head, testInfo, "moderation-agreement-and-differences", true);
  await expectNoAxeViolations(head);
  const reconcile = head.getByRole("form", { name: new RegExp(`^Final mark of Script \\d+, question ${leaves[0]!.label}$`) });
  await reconcile.getByRole("textbox").fill("1");
  await reconcile.getByRole("button", { name: "Set final mark" }).click();
  await expect(reconcile.getByText("Final: 1")).toBeVisible();

  // Signed off: the teacher's mark write is refused until the head reopens the batch.
  // The scripts are marked on two questions only: signing off warns with the count and asks to confirm.
  await head.getByRole("button", { name: "Sign the batch off" }).click();
  const confirmSignOff = head.getByRole("dialog", { name: "Sign the batch off with work left?" });
  await expect(confirmSignOff).toBeVisible();
  await expect(confirmSignOff).toContainText("3 scripts are not completely marked.");
  // The difference is reconciled and every sample script second-marked: neither is listed.
  await expect(confirmSignOff).not.toContainText("not reconciled");
  await expect(confirmSignOff).not.toContainText("not second-marked");
  await screenshot(head, testInfo, "moderation-sign-off-confirm");
  await confirmSignOff.getByRole("button", { name: "Sign off anyway" }).click();
  await expect(head.getByText(/Signed off by David Okafor/)).toBeVisible();
  await screenshot(head, testInfo, "moderation-signed-off");
  const refused = await page.request.put(`/api/exam/marks/${crypto.randomUUID()}`, {
    data: { submission_id: scripts[1], question_id: leaves[0]!.id, awarded_marks: 1 },
  });
  expect(refused.status()).toBe(409);
  // A signed-off batch refuses a scan upload too; reopening asks to confirm.
  const upload = await page.request.post(`/api/exam/batches/${batchId}/scans`, {
    multipart: { file: { name: "late.pdf", mimeType: "application/pdf", buffer: await scriptPdf(template.page_count ?? 8, "Late") }, matching_method: "ordered" },
  });
  expect(upload.status()).toBe(409);
  await head.getByRole("button", { name: "Reopen the batch" }).click();
  const confirmReopen = head.getByRole("dialog", { name: "Reopen the batch?" });
  await expect(confirmReopen).toBeVisible();
  await confirmReopen.getByRole("button", { name: "Reopen" }).click();
  await expect(head.getByRole("button", { name: "Sign the batch off" })).toBeVisible();

  // The owner's results page shows the agreement.
  await page.goto(`/batches/${batchId}/results`);
  await expect(page.getByRole("heading", { name: "Marker agreement" })).toBeVisible();
  await screenshot(page, testInfo, "results-marker-agreement", true);
  await headContext.close();
});
