import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import type { Db, Tx } from "../../db/client";
import { asUser } from "../../db/rls";
import type { StreamedRequestBody } from "../../http/route";
import { readPdfUpload } from "../pdf-upload";
import { intakeImaging } from "../intake/imaging-port";
import { examQuestions, examRubricItems } from "../../db/schema";
import { AppError, notFound } from "../../errors";
import { decimal, text } from "../../../lib/rules/input-rules";
import { recordId } from "../../http/record-id";
import { findOwnTemplateForUpdate, findTemplate } from "../own-template";
import { createRubricItem, rubricItemOutput } from "../rubrics";
import { editMarkScheme } from "../templates";
import { MAX_SCHEME_CHARS, type SchemeReading, labelKey, readSchemeLines, readSchemeText } from "./read-scheme";

/**
 * A mark scheme into a template's rubric, and a template's structure and rubric copied from another
 * (issue 37, items 3 and 4). Reading proposes (nothing is written); applying writes what the teacher
 * accepted, all or nothing (one transaction: the operation's), through the rubric's own writer
 * (createRubricItem: the template's owner, a part not a container, at most 50 items) and the question's
 * (editMarkScheme: its maximum within the marks already awarded, the Ready rules). An archived template
 * takes neither (409).
 *
 * An item already on the question (the same text and points) is never added twice: applying the same
 * scheme again, or copying into a template that has some of the items, adds only the rest, and says how
 * many it left. Nothing already on a question is removed.
 */

type QuestionRow = typeof examQuestions.$inferSelect;

const proposedItemOutput = z.object({
  text: z.string(),
  points: z.number(),
  code: z.string().nullable(),
  kind: z.enum(["method", "accuracy", "independent", "communication", "mark"]),
  /** The question already has an item of this text and points: applying it again adds nothing. */
  already_present: z.boolean(),
});

export const schemeProposalOutput = z.object({
  parts: z.array(
    z.object({
      question_id: z.uuid(),
      label: z.string(),
      max_marks: z.number().nullable(),
      items: z.array(proposedItemOutput),
      existing_items: z.number().int().describe("Rubric items the question has already"),
    }),
  ),
  warnings: z.array(z.string()).describe("Sentences for the teacher: totals that disagree, labels not on the paper, parts the scheme gives nothing"),
});
export type SchemeProposal = z.output<typeof schemeProposalOutput>;

export const proposeFromTextInput = z.object({
  template_id: recordId("Template"),
  text: z
    .string({ error: "text is required" })
    .max(MAX_SCHEME_CHARS, `The mark scheme is longer than ${MAX_SCHEME_CHARS.toLocaleString("en-GB")} characters: paste it a few questions at a time`)
    .describe("The mark scheme as plain text (pasted)"),
});

const acceptedItem = z.object({ text: text(500).trim().min(1, "text is required"), points: decimal(8, 2) });
export const applySchemeInput = z.object({
  template_id: recordId("Template"),
  body: z.object({
    parts: z
      .array(z.object({ question_id: recordId("Question"), items: z.array(acceptedItem).min(1, "each part needs at least one item").max(50, "must list at most 50 items") }))
      .min(1, "accept at least one part's items")
      .max(2000, "must list at most 2000 parts"),
  }),
});

export const applySchemeOutput = z.object({
  created: z.array(rubricItemOutput),
  already_present: z.number().int().describe("Accepted items the questions had already (same text and points): not added twice"),
});

const itemKey = (item: { text: string; points: number | string }) => `${item.text.trim()}\u0000${Number(item.points).toFixed(2)}`;

async function questionsOf(tx: Tx, templateId: string): Promise<QuestionRow[]> {
  return tx.select().from(examQuestions).where(eq(examQuestions.template_id, templateId)).orderBy(asc(examQuestions.order));
}

async function itemsByQuestion(tx: Tx, templateId: string): Promise<Map<string, (typeof examRubricItems.$inferSelect)[]>> {
  const rows = await tx.select().from(examRubricItems).where(eq(examRubricItems.template_id, templateId)).orderBy(asc(examRubricItems.position));
  const byQuestion = new Map<string, (typeof examRubricItems.$inferSelect)[]>();
  for (const row of rows) byQuestion.set(row.question_id, [...(byQuestion.get(row.question_id) ?? []), row]);
  return byQuestion;
}

const keyOf = (question: QuestionRow) => labelKey(question.label) ?? question.label.trim().toLowerCase();

/** A scheme's reading matched to a template's questions by label: each part's proposed items, and every disagreement said. */
function matchScheme(
  reading: SchemeReading,
  questions: QuestionRow[],
  existing: Map<string, { text: string; points: string }[]>,
): SchemeProposal {
  const warnings = [...reading.warnings];
  const byKey = new Map(questions.map((question) => [keyOf(question), question]));
  const parts: SchemeProposal["parts"] = [];
  const given = new Set<string>();
  for (const read of reading.questions) {
    const question = byKey.get(read.label);
    if (!question) {
      if (read.items.length > 0) warnings.push(`Question ${read.label} is in the mark scheme but not on the paper: its items were left out`);
      continue;
    }
    if (read.items.length === 0) continue;
    if (question.is_container) {
      warnings.push(`Question ${read.label} has parts on the paper: give its items to its parts (they were left out)`);
      continue;
    }
    given.add(question.id);
    const present = new Set((existing.get(question.id) ?? []).map(itemKey));
    const maxMarks = question.max_marks === null ? null : Number(question.max_marks);
    const sum = Math.round(read.items.reduce((total, item) => total + item.points, 0) * 100) / 100;
    if (maxMarks !== null && sum !== maxMarks) warnings.push(`${question.label}: the items add up to ${sum}, the paper gives ${maxMarks} mark${maxMarks === 1 ? "" : "s"}`);
    if (maxMarks === null) warnings.push(`${question.label}: the paper gives no maximum marks; the items add up to ${sum}`);
    parts.push({
      question_id: question.id,
      label: question.label,
      max_marks: maxMarks,
      items: read.items.map((item) => ({ ...item, already_present: present.has(itemKey(item)) })),
      existing_items: existing.get(question.id)?.length ?? 0,
    });
  }
  const missing = questions.filter((question) => !question.is_container && !given.has(question.id)).map((question) => question.label);
  if (missing.length > 0 && parts.length > 0) {
    warnings.push(`${listed(missing)} ${missing.length === 1 ? "has" : "have"} no items in the mark scheme`);
  }
  if (parts.length === 0) warnings.push("No question of the paper was found in this mark scheme: check its labels match the paper's (1, 2, 3(a), 3(b)(i) …)");
  return { parts, warnings };
}

const listed = (labels: string[]) => (labels.length <= 6 ? labels.join(", ") : `${labels.slice(0, 6).join(", ")} and ${labels.length - 6} more`);

/** A template's visible questions and items, and the reading matched to them (nothing written). */
async function proposeFromReading(tx: Tx, templateId: string, reading: SchemeReading): Promise<SchemeProposal> {
  await findTemplate(tx, templateId);
  const questions = await questionsOf(tx, templateId);
  return matchScheme(reading, questions, await itemsByQuestion(tx, templateId));
}

/** POST /api/exam/templates/{template_id}/mark-scheme/read: rubric items proposed from a pasted scheme. */
export async function proposeFromText(tx: Tx, input: z.input<typeof proposeFromTextInput>): Promise<SchemeProposal> {
  const { template_id: templateId, text: scheme } = proposeFromTextInput.parse(input);
  await findTemplate(tx, templateId);
  const known = new Set((await questionsOf(tx, templateId)).map(keyOf));
  return proposeFromReading(tx, templateId, readSchemeText(scheme, known));
}

/** The largest mark scheme PDF read: a long one with its cover is 2 MB. */
const MAX_SCHEME_PDF_BYTES = 20 * 1024 * 1024;
const PDF_SIGNATURE = "%PDF-";

export const templateIdOnly = z.object({ template_id: recordId("Template") });

/**
 * POST /api/exam/templates/{template_id}/mark-scheme/read-pdf: rubric items proposed from a scheme's
 * PDF (multipart, field `file`), its text layer read in the imaging worker (read-scheme-pdf.ts; bounded
 * there in pages and time, here in bytes). The template is judged as the caller before the body is read.
 */
export async function proposeFromPdf(db: Db, callerId: string, input: z.input<typeof templateIdOnly>, upload: StreamedRequestBody): Promise<SchemeProposal> {
  const { template_id: templateId } = templateIdOnly.parse(input);
  const known = await asUser(db, callerId, async (tx) => {
    await findTemplate(tx, templateId);
    return new Set((await questionsOf(tx, templateId)).map(keyOf));
  });
  const { file } = await readPdfUpload(upload, MAX_SCHEME_PDF_BYTES, "paper", async (part) => {
    const chunks: Uint8Array[] = [];
    for await (const chunk of part.body) chunks.push(chunk);
    return Buffer.concat(chunks);
  });
  if (!file || file.byteLength === 0) throw new AppError("invalid", "File: choose the mark scheme (a PDF file) to read", "file");
  if (file.subarray(0, PDF_SIGNATURE.length).toString("latin1") !== PDF_SIGNATURE) {
    throw new AppError("unsupported_media", "The mark scheme must be a PDF file (or paste its text)");
  }
  const lines = await intakeImaging().readMarkScheme(new Uint8Array(file));
  return asUser(db, callerId, (tx) => proposeFromReading(tx, templateId, readSchemeLines(lines, known)));
}

async function ownOpenTemplate(tx: Tx, callerId: string, templateId: string, refusal: string) {
  const template = await findOwnTemplateForUpdate(tx, callerId, templateId, refusal);
  if (template.status === "archived") throw new AppError("conflict", "This template is archived: restore it before changing its rubric");
  return template;
}

/**
 * POST /api/exam/templates/{template_id}/mark-scheme/apply: the accepted items, all or nothing. Every
 * question must be the template's (404 otherwise); an item the question already has is not added again.
 * Two like items within what is applied are both added: a scheme may give the same mark twice in a part
 * ("B1 either reason"), and the teacher accepted every one they were shown.
 */
export async function applySchemeItems(tx: Tx, callerId: string, input: z.input<typeof applySchemeInput>): Promise<z.output<typeof applySchemeOutput>> {
  const { template_id: templateId, body } = applySchemeInput.parse(input);
  await ownOpenTemplate(tx, callerId, templateId, "Only the template's owner can change its rubric");
  const questions = new Map((await questionsOf(tx, templateId)).map((question) => [question.id, question]));
  const existing = await itemsByQuestion(tx, templateId);
  const created: z.output<typeof rubricItemOutput>[] = [];
  let alreadyPresent = 0;
  for (const part of body.parts) {
    if (!questions.has(part.question_id)) throw notFound("Question");
    const present = new Set((existing.get(part.question_id) ?? []).map(itemKey));
    for (const item of part.items) {
      if (present.has(itemKey(item))) {
        alreadyPresent++;
        continue;
      }
      created.push(await createRubricItem(tx, callerId, { question_id: part.question_id, body: { text: item.text, points: item.points } }));
    }
  }
  return { created, already_present: alreadyPresent };
}

export const copyTemplateInput = z.object({
  template_id: recordId("Template"),
  source_template_id: recordId("Template"),
});

export const copyPreviewOutput = z.object({
  matches: z.array(
    z.object({
      label: z.string(),
      source_question_id: z.uuid(),
      target_question_id: z.uuid(),
      source_max_marks: z.number().nullable(),
      target_max_marks: z.number().nullable(),
      items_to_add: z.number().int().describe("The source's items the target question has not (same text and points)"),
      items_already: z.number().int().describe("The source's items the target question has already: not added twice"),
      copied: z.boolean().describe("false for a question with parts on one paper and without on the other: nothing is copied"),
    }),
  ),
  source_only: z.array(z.string()).describe("Labels of the source that the target has not: not created (the papers differ; add them in the editor)"),
  target_only: z.array(z.string()).describe("Labels of the target that the source has not: left as they are"),
  warnings: z.array(z.string()),
});
export const copyResultOutput = copyPreviewOutput.extend({
  items_created: z.number().int(),
  questions_changed: z.number().int(),
});

interface CopyPlan {
  preview: z.output<typeof copyPreviewOutput>;
  pairs: { source: QuestionRow; target: QuestionRow; add: (typeof examRubricItems.$inferSelect)[] }[];
}

async function planCopy(tx: Tx, targetId: string, sourceId: string): Promise<CopyPlan> {
  if (targetId.toLowerCase() === sourceId.toLowerCase()) throw new AppError("invalid", "Choose another template to copy from: this is the template itself", "source_template_id");
  const target = await findTemplate(tx, targetId);
  const source = await findTemplate(tx, sourceId);
  if (source.institute_id !== target.institute_id) throw notFound("Template");
  const [sourceQuestions, targetQuestions] = [await questionsOf(tx, sourceId), await questionsOf(tx, targetId)];
  const [sourceItems, targetItems] = [await itemsByQuestion(tx, sourceId), await itemsByQuestion(tx, targetId)];
  const targetByKey = new Map(targetQuestions.map((question) => [keyOf(question), question]));
  const matchedTargets = new Set<string>();
  const preview: CopyPlan["preview"] = { matches: [], source_only: [], target_only: [], warnings: [] };
  const pairs: CopyPlan["pairs"] = [];
  for (const question of sourceQuestions) {
    const match = targetByKey.get(keyOf(question));
    if (!match) {
      preview.source_only.push(question.label);
      continue;
    }
    matchedTargets.add(match.id);
    const copied = match.is_container === question.is_container;
    const present = new Set((targetItems.get(match.id) ?? []).map(itemKey));
    const add = copied && !question.is_container ? (sourceItems.get(question.id) ?? []).filter((item) => !present.has(itemKey(item))) : [];
    const already = copied ? (sourceItems.get(question.id)?.length ?? 0) - add.length : 0;
    if (!copied) preview.warnings.push(`${question.label} has parts on one paper and not on the other: nothing of it is copied`);
    if ((targetItems.get(match.id)?.length ?? 0) + add.length > 50) {
      preview.warnings.push(`${match.label} would have more than 50 rubric items, the most a question can have`);
    }
    preview.matches.push({
      label: match.label,
      source_question_id: question.id,
      target_question_id: match.id,
      source_max_marks: question.max_marks === null ? null : Number(question.max_marks),
      target_max_marks: match.max_marks === null ? null : Number(match.max_marks),
      items_to_add: add.length,
      items_already: already,
      copied,
    });
    if (copied && !question.is_container) pairs.push({ source: question, target: match, add });
  }
  preview.target_only = targetQuestions.filter((question) => !matchedTargets.has(question.id)).map((question) => question.label);
  if (preview.matches.length === 0) preview.warnings.push("No question of the two papers has the same label: nothing would be copied");
  return { preview, pairs };
}

/** GET /api/exam/templates/{template_id}/copy-from/{source_template_id}: what a copy would do (nothing written). */
export async function previewCopy(tx: Tx, input: z.input<typeof copyTemplateInput>) {
  const { template_id: targetId, source_template_id: sourceId } = copyTemplateInput.parse(input);
  return (await planCopy(tx, targetId, sourceId)).preview;
}

/**
 * POST /api/exam/templates/{template_id}/copy-from/{source_template_id}: matched parts take the source's
 * maximum marks, answer type and mark scheme, and the source's rubric items they have not; all or nothing.
 * Unmatched questions on either side, and every answer area, stay as they are.
 */
export async function copyFromTemplate(tx: Tx, callerId: string, input: z.input<typeof copyTemplateInput>): Promise<z.output<typeof copyResultOutput>> {
  const { template_id: targetId, source_template_id: sourceId } = copyTemplateInput.parse(input);
  // The owner and archive rules first, and the lock: the plan is read under it.
  await findTemplate(tx, sourceId);
  await ownOpenTemplate(tx, callerId, targetId, "Only the template's owner can copy into it");
  const { preview, pairs } = await planCopy(tx, targetId, sourceId);
  let questionsChanged = 0;
  let itemsCreated = 0;
  for (const { source, target, add } of pairs) {
    const changes = {
      ...(source.max_marks !== target.max_marks && { max_marks: source.max_marks === null ? null : Number(source.max_marks) }),
      ...(source.answer_type !== target.answer_type && { answer_type: source.answer_type }),
      ...(JSON.stringify(source.mark_scheme) !== JSON.stringify(target.mark_scheme) && { mark_scheme: source.mark_scheme }),
    };
    if (Object.keys(changes).length > 0) {
      await editMarkScheme(tx, callerId, { question_id: target.id, body: changes });
      questionsChanged++;
    }
    for (const item of add) {
      await createRubricItem(tx, callerId, {
        question_id: target.id,
        body: { text: item.text, points: Number(item.points), spec_ref: item.spec_ref, comment: item.comment },
      });
      itemsCreated++;
    }
  }
  return { ...preview, items_created: itemsCreated, questions_changed: questionsChanged };
}
