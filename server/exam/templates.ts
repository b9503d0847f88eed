import { and, asc, desc, eq, ne, sql } from "drizzle-orm";
import { z } from "zod";
import { integer, text } from "../../lib/rules/input-rules";
import { recordId } from "../http/record-id";
import type { Db, Tx } from "../db/client";
import { asService, asUser } from "../db/rls";
import {
  examBatches,
  examMarkEntries,
  examPapers,
  examQuestionBoundaries,
  examQuestions,
  examResponseAreas,
  examRubricItems,
  examSavedComments,
  examTemplates,
  files,
} from "../db/schema";
import { AppError, notFound } from "../errors";
import { type Canvas, boundaryPayload, inTreeOrder, nameBoxPayload, questionPayload, responseAreaPayload, validateCanvas, validateNameBox } from "./canvas";
import { UNIQUE_VIOLATION, postgresErrorCode } from "../postgres-errors";
import { isReservedExamCode } from "../graph/projection";
import { enqueueTemplateProjection } from "../graph/projection-job";
import { resolveStaffInstitute } from "./staff-institute";
import { type CatalogueStructure, catalogueStructure, questionsWithoutAreas } from "./catalogue";
import { maxMarksFault, partWithoutMaxMarks, partsTotal, readyWithoutMaxMarks } from "../../lib/rules/max-marks";
import { findOwnTemplateForUpdate, findTemplate } from "./own-template";
import { listRubricItems, rescoreForMaxMarks, rubricItemOutput } from "./rubrics";
import { isMultipleChoiceScheme, multipleChoiceFault, multipleChoiceWithoutAnswer, readyWithoutRightAnswer, tickBoxesSchema } from "../../lib/rules/tick-boxes";

const templateStatusValues = ["draft", "ready", "archived"] as const;
export type TemplateStatus = (typeof templateStatusValues)[number];

// ── Schemas (shared by REST, tRPC and the OpenAPI document) ────────────────────────────────────

export const createTemplateInput = z.object({
  title: text(300).trim().min(1, "title is required"),
  subject: text(200).trim().nullish(),
  exam_id: text(200).trim().min(1).nullish(),
  exam_code: text(200)
    .trim()
    .min(1)
    // `template-…` is the graph's paper key of a template without a code: typing one would join that paper.
    .refine((code) => !isReservedExamCode(code), "exam_code must not start with 'template-': that form is reserved for templates without a catalogue code")
    .nullish(),
  source_file_id: z.uuid("source_file_id must be a file id").nullish(),
  page_count: integer({ min: 1, max: 2000 }).nullish(),
  institute_id: z.uuid("institute_id must be an institute id").nullish(),
});

export const listTemplatesInput = z.object({
  status: z.enum(templateStatusValues).optional().describe("Only this status"),
  subject: text(200).trim().min(1).optional().describe("Only this subject (case-insensitive)"),
  exam_code: text(200).trim().min(1).optional().describe("Only this catalogue paper code"),
  include_archived: z.boolean().default(false),
});

export const templateIdInput = z.object({ template_id: recordId("Template") });

/**
 * The full-replace save: template-level fields (all optional) plus the canvas. The three canvas arrays
 * come together or not at all: without them only the template-level fields change.
 */
const saveTemplateBody = z
  .object({
    title: text(300).trim().min(1, "title must not be blank").optional(),
    subject: text(200).trim().nullable().optional(),
    page_count: integer({ min: 1, max: 2000 }).nullable().optional(),
    status: z.enum(templateStatusValues).optional(),
    name_box: nameBoxPayload.nullable().optional(),
    questions: z.array(questionPayload).max(2000).optional(),
    response_areas: z.array(responseAreaPayload).max(10000).optional(),
    boundaries: z.array(boundaryPayload).max(10000).optional(),
  })
  .refine(
    (body) => [body.questions, body.response_areas, body.boundaries].every((a) => a === undefined) ||
      [body.questions, body.response_areas, body.boundaries].every((a) => a !== undefined),
    { message: "questions, response_areas and boundaries are sent together (a full replace) or not at all", path: ["questions"] },
  );
export const saveTemplateInput = templateIdInput.extend({ body: saveTemplateBody });

/** PATCH /api/exam/questions/{id}: the mark scheme of one question; every field optional. */
const editMarkSchemeBody = z.object({
  max_marks: questionPayload.shape.max_marks.unwrap().optional(),
  mark_scheme: questionPayload.shape.mark_scheme.unwrap().optional(),
  answer_type: questionPayload.shape.answer_type.unwrap().optional(),
  spec_ref: questionPayload.shape.spec_ref.unwrap().optional(),
});
export const editMarkSchemeInput = z.object({ question_id: recordId("Question"), body: editMarkSchemeBody });

export const templateOutput = z.object({
  id: z.uuid(),
  institute_id: z.uuid(),
  owner_id: z.uuid(),
  title: z.string(),
  subject: z.string().nullable(),
  exam_id: z.string().nullable(),
  exam_code: z.string().nullable(),
  source_file_id: z.uuid().nullable(),
  page_count: z.number().int().nullable(),
  name_box: nameBoxPayload.nullable(),
  status: z.enum(templateStatusValues),
  created_at: z.date(),
  updated_at: z.date(),
});

export const questionOutput = z.object({
  id: z.uuid(),
  template_id: z.uuid(),
  parent_id: z.uuid().nullable(),
  label: z.string(),
  order: z.number().int(),
  max_marks: z.number().nullable(),
  answer_type: z.string().nullable(),
  mark_scheme: z.looseObject({ type: z.string() }).nullable(),
  spec_ref: z.string().nullable(),
  is_container: z.boolean(),
});
const responseAreaOutput = responseAreaPayload.extend({ template_id: z.uuid(), response_form: z.string().nullable(), tick_boxes: tickBoxesSchema.nullable() });
const boundaryOutput = boundaryPayload.extend({ template_id: z.uuid() });

export const templateWithCanvasOutput = templateOutput.extend({
  questions: z.array(questionOutput),
  response_areas: z.array(responseAreaOutput),
  boundaries: z.array(boundaryOutput),
  /** The rubric items of its questions (server/exam/rubrics.ts), by question and position. */
  rubric_items: z.array(rubricItemOutput),
});
export const templateListOutput = z.object({ templates: z.array(templateOutput) });

type TemplateRow = typeof examTemplates.$inferSelect;
type QuestionRow = typeof examQuestions.$inferSelect;

function questionFromRow(row: QuestionRow): z.output<typeof questionOutput> {
  return { ...row, max_marks: row.max_marks === null ? null : Number(row.max_marks) };
}

// ── Service-level read the contract names (docs/spec/classroom-api.md "What the service does") ──────────

/**
 * A catalogue paper's exam_code and file, read with the service's rights: the contract's named
 * exception (docs/spec/classroom-api.md "What the service does", data access model). Its own short transaction, taken
 * before the caller's (PGlite has a single connection, so
 * a transaction cannot be opened inside another).
 */
async function findCataloguePaper(db: Db, examId: string): Promise<{ exam_code: string; source_file_id: string | null } | null> {
  return asService(db, async (tx) => {
    const [paper] = await tx
      .select({ exam_code: examPapers.exam_code, source_file_id: examPapers.source_file_id })
      .from(examPapers)
      .where(eq(examPapers.id, examId));
    return paper ?? null;
  });
}

// ── Rules ──────────────────────────────────────────────────────────────────────────────────────

/**
 * Creates a template owned by the caller. Takes the database rather than a transaction because the
 * catalogue read (service rights) comes first, then everything else runs as the caller in one
 * transaction. From a catalogue paper, the template starts with the paper's question structure.
 */
export async function createTemplate(db: Db, callerId: string, input: z.input<typeof createTemplateInput>): Promise<TemplateRow> {
  const values = createTemplateInput.parse(input);
  const paper = values.exam_id ? await findCataloguePaper(db, values.exam_id) : null;
  if (values.exam_id && !paper) throw new AppError("invalid", `Catalogue paper: there is no catalogue paper ${values.exam_id}`, "exam_id");
  const structure = values.exam_id ? await catalogueStructure(values.exam_id) : null;
  return asUser(db, callerId, async (tx) => {
    const template = await insertTemplate(tx, callerId, { ...values, exam_code: values.exam_code ?? paper?.exam_code ?? null });
    return structure ? copyCatalogueStructure(tx, template, structure, paper?.source_file_id ?? null) : template;
  });
}

/**
 * A template made from a catalogue paper starts with the paper's questions, marks and specification
 * points. Over the paper's own PDF the areas come too and the template is ready to mark; over another
 * PDF the areas would sit in the wrong places, so it stays a draft with the questions only. Checked
 * as a save is, and projected into the graph as one.
 */
async function copyCatalogueStructure(tx: Tx, template: TemplateRow, structure: CatalogueStructure, paperFileId: string | null): Promise<TemplateRow> {
  const samePages = paperFileId !== null && template.source_file_id === paperFileId;
  const canvas: Canvas = samePages ? structure : { questions: questionsWithoutAreas(structure), response_areas: [], boundaries: [] };
  validateCanvas(canvas, template.page_count);
  await replaceCanvas(tx, template.id, canvas);
  await enqueueTemplateProjection(tx, template.id);
  if (!samePages) return template;
  if (structure.name_box) validateNameBox(structure.name_box, template.page_count);
  const [ready] = await tx.update(examTemplates).set({ status: "ready", name_box: structure.name_box }).where(eq(examTemplates.id, template.id)).returning();
  return ready!;
}

/**
 * Creates a template owned by the caller inside the caller's transaction: the institute rule and the
 * source file check, then the row. `exam_code` must already be resolved when `exam_id` is given
 * (createTemplate reads it from the catalogue first).
 */
export async function insertTemplate(tx: Tx, callerId: string, values: z.output<typeof createTemplateInput>): Promise<TemplateRow> {
  const instituteId = await resolveStaffInstitute(tx, callerId, values.institute_id, "create exam templates");
  if (values.source_file_id) {
    // RLS: a file of another institute is invisible, so it reads as unknown.
    const [file] = await tx.select({ id: files.id }).from(files).where(eq(files.id, values.source_file_id));
    if (!file) throw new AppError("invalid", `Paper PDF: there is no uploaded file ${values.source_file_id}`, "source_file_id");
  }
  const [template] = await tx
    .insert(examTemplates)
    .values({
      institute_id: instituteId,
      owner_id: callerId,
      title: values.title,
      subject: values.subject ?? null,
      exam_id: values.exam_id ?? null,
      exam_code: values.exam_code ?? null,
      source_file_id: values.source_file_id ?? null,
      page_count: values.page_count ?? null,
    })
    .returning();
  return template!;
}

export async function listTemplates(tx: Tx, input: z.input<typeof listTemplatesInput>): Promise<TemplateRow[]> {
  const filters = listTemplatesInput.parse(input);
  const conditions = [
    filters.status ? eq(examTemplates.status, filters.status) : undefined,
    // Asking for archived ones by status shows them even without include_archived.
    !filters.include_archived && filters.status !== "archived" ? ne(examTemplates.status, "archived") : undefined,
    filters.subject ? sql`lower(${examTemplates.subject}) = lower(${filters.subject})` : undefined,
    filters.exam_code ? eq(examTemplates.exam_code, filters.exam_code) : undefined,
  ];
  return tx
    .select()
    .from(examTemplates)
    .where(and(...conditions))
    .orderBy(desc(examTemplates.updated_at), desc(examTemplates.id));
}

/** A visible template, 404 otherwise. */
/** One template with its whole canvas: questions flat with parent_id, parents before parts, in order. */
export async function getTemplate(tx: Tx, templateId: string): Promise<z.output<typeof templateWithCanvasOutput>> {
  const template = await findTemplate(tx, templateId);
  const questions = await tx
    .select()
    .from(examQuestions)
    .where(eq(examQuestions.template_id, templateId))
    .orderBy(asc(examQuestions.order), asc(examQuestions.label));
  const areas = await tx
    .select()
    .from(examResponseAreas)
    .where(eq(examResponseAreas.template_id, templateId))
    .orderBy(asc(examResponseAreas.page), asc(examResponseAreas.y));
  const boundaries = await tx
    .select()
    .from(examQuestionBoundaries)
    .where(eq(examQuestionBoundaries.template_id, templateId))
    .orderBy(asc(examQuestionBoundaries.page), asc(examQuestionBoundaries.top));
  return {
    ...template,
    questions: inTreeOrder(questions.map(questionFromRow)).map((q) => ({ ...q, template_id: templateId })),
    response_areas: areas,
    boundaries,
    rubric_items: await listRubricItems(tx, templateId),
  };
}

/** Whether any batch of the template has a mark entry: a canvas replace would then delete recorded marks. */
async function templateHasMarks(tx: Tx, templateId: string): Promise<boolean> {
  const [row] = await tx
    .select({ one: sql<number>`1` })
    .from(examMarkEntries)
    .innerJoin(examBatches, eq(examBatches.id, examMarkEntries.batch_id))
    .where(eq(examBatches.template_id, templateId))
    .limit(1);
  return Boolean(row);
}

/**
 * Full-replace save, as the caller in one transaction: the template row and its questions are locked
 * first, so a mark being written concurrently either commits before the 409 check (and is seen) or
 * waits for the replace; the old canvas is deleted and the new one inserted, and any failure rolls all
 * of it back. The template's graph projection is queued as a job in the same transaction.
 */
export async function saveTemplate(db: Db, callerId: string, input: z.input<typeof saveTemplateInput>) {
  const values = saveTemplateInput.parse(input);
  return asUser(db, callerId, async (tx) => {
    const saved = await replaceTemplate(tx, callerId, values);
    // The projection is a job committed with the save: it runs (and is retried) on any app process,
    // its failure never undoes the save, and it is lost only if the save is.
    await enqueueTemplateProjection(tx, saved.id);
    return saved;
  });
}

/**
 * The full-replace save inside the caller's transaction (saveTemplate opens it and queues the graph
 * projection): owner check, validateCanvas, the 409 guard, then the replace.
 */
export async function replaceTemplate(tx: Tx, callerId: string, { template_id: templateId, body }: z.output<typeof saveTemplateInput>) {
  const template = await findOwnTemplateForUpdate(tx, callerId, templateId);
  const pageCount = body.page_count === undefined ? template.page_count : body.page_count;
  // Ready (asked for now, or kept while the canvas is replaced) needs every part's maximum marks.
  if (body.status === "ready" || (body.status === undefined && template.status === "ready" && body.questions)) {
    const questions = body.questions ?? (await tx.select().from(examQuestions).where(eq(examQuestions.template_id, templateId))).map(questionFromRow);
    const missing = partWithoutMaxMarks(inTreeOrder(questions));
    if (missing) throw new AppError("invalid", readyWithoutMaxMarks(missing.label), "max_marks");
    const unanswered = multipleChoiceWithoutAnswer(inTreeOrder(questions));
    if (unanswered) throw new AppError("invalid", readyWithoutRightAnswer(unanswered.label), "mark_scheme");
  }

  if (body.questions && body.response_areas && body.boundaries) {
    const canvas: Canvas = { questions: body.questions, response_areas: body.response_areas, boundaries: body.boundaries };
    validateCanvas(canvas, pageCount);
    // Lock the existing questions: a concurrent mark insert (its foreign-key check takes KEY SHARE)
    // finishes before this point or waits until the replace commits.
    await tx.select({ id: examQuestions.id }).from(examQuestions).where(eq(examQuestions.template_id, templateId)).for("update");
    if (await templateHasMarks(tx, templateId)) {
      throw new AppError("conflict", "Marks are already recorded for this template: replacing its canvas would delete them");
    }
    await replaceCanvas(tx, templateId, canvas);
  } else if (body.page_count !== undefined && body.page_count !== null) {
    await checkPagesFit(tx, templateId, body.page_count);
  }
  // Not part of the canvas: changed whenever asked, marks or not, and checked against the pages either way.
  const nameBox = body.name_box === undefined ? template.name_box : body.name_box;
  if (nameBox) validateNameBox(nameBox, pageCount);

  const [saved] = await tx
    .update(examTemplates)
    .set({
      ...(body.title !== undefined && { title: body.title }),
      ...(body.subject !== undefined && { subject: body.subject }),
      ...(body.page_count !== undefined && { page_count: body.page_count }),
      ...(body.status !== undefined && { status: body.status }),
      ...(body.name_box !== undefined && { name_box: body.name_box }),
      updated_at: new Date(),
    })
    .where(eq(examTemplates.id, templateId))
    .returning();
  return getTemplateAfterSave(tx, saved!);
}

async function getTemplateAfterSave(tx: Tx, saved: TemplateRow) {
  const full = await getTemplate(tx, saved.id);
  return { ...full, ...saved };
}

/** Lowering page_count without a canvas: existing areas and boundaries must still fit. */
async function checkPagesFit(tx: Tx, templateId: string, pageCount: number): Promise<void> {
  const [row] = await tx
    .select({ last: sql<number | null>`max(${examResponseAreas.page})` })
    .from(examResponseAreas)
    .where(eq(examResponseAreas.template_id, templateId));
  const [boundary] = await tx
    .select({ last: sql<number | null>`max(${examQuestionBoundaries.page})` })
    .from(examQuestionBoundaries)
    .where(eq(examQuestionBoundaries.template_id, templateId));
  const last = Math.max(Number(row?.last ?? 0), Number(boundary?.last ?? 0));
  if (last > pageCount) throw new AppError("invalid", `Pages: the template uses page ${last}, but the paper has ${pageCount}`, "page_count");
}

async function replaceCanvas(tx: Tx, templateId: string, canvas: Canvas): Promise<void> {
  // Rubric items and saved comments are not part of the canvas: those of questions that stay parts are
  // kept (no mark uses them yet, or the replace would be refused), and go with the questions that do not.
  const items = await tx.select().from(examRubricItems).where(eq(examRubricItems.template_id, templateId));
  const comments = await tx.select().from(examSavedComments).where(eq(examSavedComments.template_id, templateId));
  await tx.delete(examQuestionBoundaries).where(eq(examQuestionBoundaries.template_id, templateId));
  await tx.delete(examResponseAreas).where(eq(examResponseAreas.template_id, templateId));
  await tx.delete(examQuestions).where(eq(examQuestions.template_id, templateId));
  try {
    if (canvas.questions.length > 0) {
      await tx.insert(examQuestions).values(
        inTreeOrder(canvas.questions).map((q) => ({
          ...q,
          template_id: templateId,
          max_marks: q.max_marks === null ? null : q.max_marks.toFixed(2),
        })),
      );
    }
    if (canvas.response_areas.length > 0) {
      await tx.insert(examResponseAreas).values(canvas.response_areas.map((area) => ({ ...area, template_id: templateId })));
    }
    if (canvas.boundaries.length > 0) {
      await tx.insert(examQuestionBoundaries).values(canvas.boundaries.map((b) => ({ ...b, template_id: templateId })));
    }
    const parts = new Set(canvas.questions.filter((question) => !question.is_container).map((question) => question.id));
    const kept = items.filter((item) => parts.has(item.question_id));
    if (kept.length > 0) await tx.insert(examRubricItems).values(kept);
    const keptComments = comments.filter((comment) => parts.has(comment.question_id));
    if (keptComments.length > 0) await tx.insert(examSavedComments).values(keptComments);
  } catch (error) {
    if (postgresErrorCode(error) === UNIQUE_VIOLATION) {
      // Client UUIDs are global keys: one that another template already uses cannot be taken.
      throw new AppError("invalid", "A question, answer area or boundary id is already used by another template: give it a new id", "id");
    }
    throw error;
  }
}

/** Soft delete: the template is archived, never removed (batches and results keep referring to it). */
export async function archiveTemplate(tx: Tx, callerId: string, templateId: string): Promise<TemplateRow> {
  await findOwnTemplateForUpdate(tx, callerId, templateId);
  const [archived] = await tx
    .update(examTemplates)
    .set({ status: "archived", updated_at: new Date() })
    .where(eq(examTemplates.id, templateId))
    .returning();
  return archived!;
}

/**
 * Granular mark-scheme edit of one question (max_marks, mark_scheme, answer_type, spec_ref). Not
 * subject to the 409 guard since it deletes nothing, but max_marks may not drop below a mark already
 * awarded for the question (409), so recorded marks stay within range.
 */
export async function editMarkScheme(tx: Tx, callerId: string, input: z.input<typeof editMarkSchemeInput>) {
  const { question_id: questionId, body } = editMarkSchemeInput.parse(input);
  const [question] = await tx.select().from(examQuestions).where(eq(examQuestions.id, questionId));
  if (!question) throw notFound("Question");
  const template = await findOwnTemplateForUpdate(tx, callerId, question.template_id);
  const siblings = (await tx.select().from(examQuestions).where(eq(examQuestions.template_id, template.id))).map(questionFromRow);
  if (body.max_marks !== undefined) checkEditedMaxMarks(siblings, questionId, body.max_marks);
  if (body.max_marks === null && template.status === "ready" && !question.is_container) {
    throw new AppError("invalid", `${readyWithoutMaxMarks(question.label)}: set the template back to Draft to clear it`, "max_marks");
  }
  if (body.mark_scheme && isMultipleChoiceScheme(body.mark_scheme)) {
    // The right answers are boxes of the question's areas as saved (the canvas save checks the same).
    const areas = await tx.select({ tick_boxes: examResponseAreas.tick_boxes }).from(examResponseAreas).where(eq(examResponseAreas.question_id, questionId));
    const fault = multipleChoiceFault(body.mark_scheme, new Set(areas.flatMap((area) => (area.tick_boxes ?? []).map((box) => box.label))));
    if (fault) throw new AppError("invalid", `mark_scheme: question ${question.label}: ${fault}`, "mark_scheme");
    if (template.status === "ready" && multipleChoiceWithoutAnswer([{ ...question, mark_scheme: body.mark_scheme }])) {
      throw new AppError("invalid", `${readyWithoutRightAnswer(question.label)}: set the template back to Draft to clear it`, "mark_scheme");
    }
  }
  if (body.max_marks !== undefined && body.max_marks !== null) {
    // Marks made of rubric items are re-scored within the new maximum instead (below).
    const [highest] = await tx
      .select({ value: sql<string | null>`max(${examMarkEntries.awarded_marks})` })
      .from(examMarkEntries)
      .where(and(eq(examMarkEntries.question_id, questionId), sql`${examMarkEntries.mark_scheme_detail} ->> 'type' is distinct from 'rubric'`));
    if (highest?.value !== null && highest?.value !== undefined && Number(highest.value) > body.max_marks) {
      throw new AppError("conflict", `Maximum marks: a mark of ${Number(highest.value)} is already awarded for this question, so the maximum cannot be lower`, "max_marks");
    }
  }
  const changes = {
    ...(body.max_marks !== undefined && { max_marks: body.max_marks === null ? null : body.max_marks.toFixed(2) }),
    ...(body.mark_scheme !== undefined && { mark_scheme: body.mark_scheme }),
    ...(body.answer_type !== undefined && { answer_type: body.answer_type }),
    ...(body.spec_ref !== undefined && { spec_ref: body.spec_ref }),
  };
  if (Object.keys(changes).length === 0) return questionFromRow(question);
  const [updated] = await tx.update(examQuestions).set(changes).where(eq(examQuestions.id, questionId)).returning();
  if (body.max_marks !== undefined) {
    await updateStoredTotals(tx, siblings, questionId, body.max_marks);
    const before = question.max_marks === null ? null : Number(question.max_marks);
    if (before !== body.max_marks) await rescoreForMaxMarks(tx, callerId, question, before, body.max_marks);
  }
  await tx.update(examTemplates).set({ updated_at: new Date() }).where(eq(examTemplates.id, template.id));
  return questionFromRow(updated!);
}

/** The maximum-marks rule (max-marks.ts) for one question's edited maximum, among its template's questions. */
function checkEditedMaxMarks(questions: z.output<typeof questionOutput>[], questionId: string, maxMarks: number | null): void {
  const edited = questions.map((question) => (question.id === questionId ? { ...question, max_marks: maxMarks } : question));
  const question = edited.find((candidate) => candidate.id === questionId)!;
  const fault = maxMarksFault([question, ...edited.filter((candidate) => candidate.id !== questionId)]);
  if (fault?.index === 0) throw new AppError("invalid", fault.message, "max_marks");
}

/** A part's maximum changed: the containers above it that store a total keep storing the right one. */
async function updateStoredTotals(tx: Tx, questions: z.output<typeof questionOutput>[], questionId: string, maxMarks: number | null) {
  const edited = questions.map((question) => (question.id === questionId ? { ...question, max_marks: maxMarks } : question));
  const byId = new Map(edited.map((question) => [question.id, question]));
  for (let parent = byId.get(questionId)?.parent_id; parent; parent = byId.get(parent)?.parent_id ?? null) {
    const container = byId.get(parent);
    if (!container || container.max_marks === null) continue;
    await tx.update(examQuestions).set({ max_marks: partsTotal(edited, parent).toFixed(2) }).where(eq(examQuestions.id, parent));
  }
}
