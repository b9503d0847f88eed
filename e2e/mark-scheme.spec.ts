import { expect, test, type Page } from "@playwright/test";
import { markScheme } from "../tests/support/mark-schemes";
import { mutate, screenshot, signIn } from "./helpers";
import { twoPagePaper } from "./papers";

/**
 * A mark scheme pasted into a template's rubric, accepted by keyboard (issue 37, item 3), and a
 * template copied from another paper (item 4), in the editor's "Mark scheme" and "Copy from another
 * paper" dialogs; both dialogs looked at on a laptop (1366×768) and a small screen (1024×768).
 */

const PARTS = [
  { label: "1(a)", marks: 3 },
  { label: "1(b)", marks: 2 },
  { label: "2", marks: 4 },
];

interface Template {
  questions: { id: string; label: string; max_marks: number | null }[];
  rubric_items: { question_id: string; text: string; points: number; position: number }[];
}

/** A template of the signed-in teacher's own on a two-page paper: question 1 with parts 1(a), 1(b), and question 2. */
async function paperWithParts(page: Page, title: string, marks = PARTS.map((part) => part.marks)) {
  const upload = await page.request.post("/api/exam/files", { multipart: { file: { name: "paper.pdf", mimeType: "application/pdf", buffer: await twoPagePaper() } } });
  expect(upload.status()).toBe(201);
  const file = (await upload.json()) as { id: string; page_count: number };
  const template = await mutate<{ id: string }>(page, "exam.templates.create", { title, source_file_id: file.id, page_count: file.page_count });
  const [q1, q1a, q1b, q2] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
  const question = (id: string, parent: string | null, label: string, order: number, max: number | null, container = false) => ({
    id,
    parent_id: parent,
    label,
    order,
    max_marks: max,
    answer_type: null,
    mark_scheme: null,
    spec_ref: null,
    is_container: container,
  });
  const area = (questionId: string, y: number) => ({ id: crypto.randomUUID(), question_id: questionId, page: 1, kind: "response", response_form: null, x: 0.1, y, width: 0.8, height: 0.2 });
  await mutate(page, "exam.templates.save", {
    template_id: template.id,
    body: {
      questions: [question(q1, null, "1", 0, marks[0]! + marks[1]!, true), question(q1a, q1, "1(a)", 1, marks[0]!), question(q1b, q1, "1(b)", 2, marks[1]!), question(q2, null, "2", 3, marks[2]!)],
      response_areas: [area(q1a, 0.1), area(q1b, 0.35), area(q2, 0.6)],
      boundaries: [],
    },
  });
  return { id: template.id, ids: { "1(a)": q1a, "1(b)": q1b, "2": q2 } as Record<string, string> };
}

async function saved(page: Page, templateId: string): Promise<Template> {
  const reply = await page.request.get(`/api/exam/templates/${templateId}`);
  expect(reply.ok()).toBe(true);
  return (await reply.json()) as Template;
}

const itemsByLabel = (template: Template) => {
  const labels = new Map(template.questions.map((question) => [question.id, question.label]));
  const byLabel: Record<string, { text: string; points: number }[]> = {};
  for (const item of [...template.rubric_items].sort((a, b) => a.position - b.position)) {
    const label = labels.get(item.question_id)!;
    (byLabel[label] ??= []).push({ text: item.text, points: item.points });
  }
  return byLabel;
};

test("a teacher pastes a mark scheme, accepts it by keyboard, and the rubric equals the scheme; then copies the template into another", async ({ page }, testInfo) => {
  test.setTimeout(180_000);
  await signIn(page);
  const source = await paperWithParts(page, `Scheme source ${Date.now()}`);
  const scheme = markScheme(PARTS, 20261206, { layout: "table", labelStyle: "joined" });

  await page.setViewportSize({ width: 1366, height: 768 });
  await page.goto(`/templates/${source.id}`);
  await page.getByRole("button", { name: "Mark scheme" }).click();
  const dialog = page.getByRole("dialog", { name: "Mark scheme" });
  await dialog.getByLabel("Mark scheme text").fill(scheme.text);
  await dialog.getByRole("button", { name: "Read the mark scheme" }).click();
  const list = dialog.getByRole("listbox", { name: "Proposed rubric items by part" });
  await expect(list).toBeFocused();
  await expect(list.getByRole("option")).toHaveCount(3);
  // Each Enter accepts the chosen part and moves to the next one.
  for (let part = 0; part < 3; part++) await page.keyboard.press("Enter");
  await expect(list.getByRole("option", { selected: true })).toHaveCount(3);
  await screenshot(page, testInfo, "mark-scheme-dialog-1366");
  await page.setViewportSize({ width: 1024, height: 768 });
  await screenshot(page, testInfo, "mark-scheme-dialog-1024");
  const total = Object.values(scheme.truth).reduce((sum, items) => sum + items.length, 0);
  const add = dialog.getByRole("button", { name: `Add ${total} items to the rubric` });
  await add.focus();
  await page.keyboard.press("Enter");
  await expect(dialog.getByText("Added to the rubric")).toBeVisible();
  expect(itemsByLabel(await saved(page, source.id))).toEqual(scheme.truth);
  await dialog.getByRole("button", { name: "Close" }).click();

  // Next year's paper: the same labels, other marks for question 2. Copied from this one.
  const target = await paperWithParts(page, `Scheme target ${Date.now()}`, [3, 2, 5]);
  await page.setViewportSize({ width: 1366, height: 768 });
  await page.goto(`/templates/${target.id}`);
  await page.getByRole("button", { name: "Copy from another paper" }).click();
  const copy = page.getByRole("dialog", { name: "Copy from another paper" });
  const sourceTitle = (await saved(page, source.id)) as unknown as { title: string };
  await copy.getByLabel("Copy from").selectOption({ label: sourceTitle.title });
  await expect(copy.getByRole("table")).toContainText("4 → 5");
  await screenshot(page, testInfo, "copy-from-dialog-1366");
  await page.setViewportSize({ width: 1024, height: 768 });
  await screenshot(page, testInfo, "copy-from-dialog-1024");
  await copy.getByRole("button", { name: /^Copy \d+ matched questions?$/ }).click();
  await expect(copy.getByText("Copied")).toBeVisible();
  const copied = await saved(page, target.id);
  expect(itemsByLabel(copied)).toEqual(scheme.truth);
  expect(copied.questions.find((question) => question.label === "2")!.max_marks).toBe(4);
  await copy.getByRole("button", { name: "Close" }).click();
});
