import { and, asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { type AnnotationLayer, annotationBody, annotationGeometry, annotationKinds, annotationLayers, MAX_COMMENT_LENGTH } from "../../../lib/rules/annotation";
import type { Tx } from "../../db/client";
import { examAnnotations, examModerationScripts, examQuestions, examRubricItems, examSubmissions, examTemplates } from "../../db/schema";
import { AppError, notFound } from "../../errors";
import { recordId } from "../../http/record-id";
import { type BatchAction, type BatchRow, openBatchFor } from "../batch-gate";
import { findVisibleBatch } from "../batches";
import { scanPageNumbers } from "../scan-page-numbers";

/**
 * Annotations on a script's scan (issue 35, item 1; docs/decisions/marking-quality.md, "Annotations on the scan"): vector shapes a
 * marker puts over a page, never a change to the scan. Each has a client-owned id, so a save is an
 * idempotent upsert (the marking screen may send it again after a lost connection) and a mark's
 * annotation_shape_ids may name it.
 *
 * Two layers: `marking`, the first marking's, which every member of staff who sees the batch reads and
 * its writers (owner, markers, department heads) draw, and which the student reads once the script is
 * released; `second_marking`, a blind second marker's own, which only its author reads and changes
 * (the same rule as moderation's queue: the second marker's reads carry nothing of the first marking's,
 * and the first marker's nothing of the second's). Row-level security says the same (the policies under
 * server/db/sql/policies/exam_annotations/).
 */

export const annotationOutput = z.object({
  id: z.uuid(),
  submission_id: z.uuid(),
  batch_id: z.uuid(),
  page: z.number().int().describe("The page of the script's scan, from 1"),
  kind: z.enum(annotationKinds),
  layer: z.enum(annotationLayers),
  geometry: annotationGeometry.describe("Page-relative (0–1): {x, y} for a tick, cross, text or stamp; {x, y, width, height} for a highlight; {points: [[x, y, pressure], …]} for a pen stroke"),
  text: z.string().nullable().describe("A text comment's words, or a stamp's label"),
  question_id: z.uuid().nullable(),
  rubric_item_id: z.uuid().nullable(),
  author_id: z.uuid().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type AnnotationRecord = z.output<typeof annotationOutput>;

export const listAnnotationsInput = z.object({
  submission_id: recordId("Submission"),
  layer: z
    .enum(annotationLayers, { error: "must be marking or second_marking" })
    .optional()
    .describe("marking (the default): the first marking's shapes; second_marking: the caller's own blind second marking's"),
});

export const annotationListOutput = z.object({
  submission_id: z.uuid(),
  layer: z.enum(annotationLayers),
  annotations: z.array(annotationOutput),
});

export const saveAnnotationInput = z.object({ annotation_id: recordId("Annotation"), body: annotationBody });
export const removeAnnotationInput = z.object({ annotation_id: recordId("Annotation") });
export const removedAnnotationOutput = z.object({ id: z.uuid() });

type AnnotationRow = typeof examAnnotations.$inferSelect;

const recordOf = (row: AnnotationRow): AnnotationRecord => ({ ...row, geometry: row.geometry as AnnotationRecord["geometry"] });

/** The batch action a write of a layer names (server/exam/batch-gate.ts). */
const actionOf = (layer: AnnotationLayer): BatchAction => (layer === "marking" ? "annotate" : "second_mark");

/** The annotation the caller may know of: another's blind second marking reads as absent, as it does to the list. */
async function knownAnnotation(tx: Tx, callerId: string, annotationId: string): Promise<AnnotationRow | undefined> {
  const [row] = await tx.select().from(examAnnotations).where(eq(examAnnotations.id, annotationId));
  if (!row || (row.layer === "second_marking" && row.author_id !== callerId)) return undefined;
  return row;
}

/**
 * A submission of a batch the caller sees, locked as a mark write locks it: a sign-off (which locks its
 * batch's submissions) either waits for this write or has committed, so the gate's answer holds.
 * A student who reads their released script does not see its batch: 404.
 */
async function lockedScript(tx: Tx, submissionId: string) {
  const [submission] = await tx
    .select({ id: examSubmissions.id, batch_id: examSubmissions.batch_id, page_count: examSubmissions.page_count })
    .from(examSubmissions)
    .where(eq(examSubmissions.id, submissionId))
    .for("update");
  if (!submission) throw notFound("Submission");
  return submission;
}

/** The pages of the script: its filed scan pages, else its scan's page count, else the paper's; null when nothing says. */
async function pagesOfScript(tx: Tx, submission: { id: string; page_count: number | null }, batch: BatchRow): Promise<number | null> {
  const filed = await scanPageNumbers(tx, submission.id);
  if (filed) return filed.length;
  if (submission.page_count !== null) return submission.page_count;
  const [template] = await tx.select({ page_count: examTemplates.page_count }).from(examTemplates).where(eq(examTemplates.id, batch.template_id));
  return template?.page_count ?? null;
}

/**
 * The question and rubric item a shape names, checked against the batch's paper (400 naming the field;
 * an id of another school's paper reads the same as one that names nothing). A stamp's question is its
 * rubric item's when not given, and its label the item's text.
 */
async function references(tx: Tx, batch: BatchRow, body: z.output<typeof annotationBody>) {
  let questionId = body.question_id ?? null;
  let label = body.text ?? null;
  if (questionId !== null) {
    const [question] = await tx.select({ template_id: examQuestions.template_id }).from(examQuestions).where(eq(examQuestions.id, questionId));
    if (!question || question.template_id !== batch.template_id) throw new AppError("invalid", "Question: not a question of this batch's paper", "question_id");
  }
  const rubricItemId = body.rubric_item_id ?? null;
  if (rubricItemId !== null) {
    const [item] = await tx
      .select({ template_id: examRubricItems.template_id, question_id: examRubricItems.question_id, text: examRubricItems.text })
      .from(examRubricItems)
      .where(eq(examRubricItems.id, rubricItemId));
    if (!item || item.template_id !== batch.template_id) throw new AppError("invalid", "Rubric item: not an item of this batch's paper's rubrics", "rubric_item_id");
    if (questionId !== null && item.question_id !== questionId) throw new AppError("invalid", "Rubric item: not an item of the question the shape names", "rubric_item_id");
    questionId = item.question_id;
    if (body.kind === "stamp" && label === null) label = item.text.slice(0, MAX_COMMENT_LENGTH);
  }
  return { questionId, rubricItemId, label };
}

/** A shape that is already stored under the id: the same script and layer, or it is not this one. */
function sameShape(existing: AnnotationRow, submissionId: string, layer: AnnotationLayer) {
  // An id of another script is not overwritten: as far as this script goes, there is no such shape.
  if (existing.submission_id !== submissionId) throw notFound("Annotation");
  if (existing.layer !== layer) {
    throw new AppError("conflict", `This shape belongs to the ${existing.layer === "marking" ? "first marking" : "blind second marking"}: its layer does not change`);
  }
}

/**
 * GET /api/exam/submissions/{submission_id}/annotations: the shapes of one layer of a script, in the
 * order they were drawn. Staff who see the batch read the first marking's; the second marking's layer
 * holds the caller's own shapes only, never a colleague's.
 */
export async function listAnnotations(tx: Tx, callerId: string, input: z.input<typeof listAnnotationsInput>): Promise<z.output<typeof annotationListOutput>> {
  const { submission_id: submissionId, layer = "marking" } = listAnnotationsInput.parse(input);
  const [submission] = await tx.select({ batch_id: examSubmissions.batch_id }).from(examSubmissions).where(eq(examSubmissions.id, submissionId));
  if (!submission) throw notFound("Submission");
  await findVisibleBatch(tx, submission.batch_id).catch(() => {
    throw notFound("Submission");
  });
  const rows = await tx
    .select()
    .from(examAnnotations)
    .where(
      and(
        eq(examAnnotations.submission_id, submissionId),
        eq(examAnnotations.layer, layer),
        layer === "second_marking" ? eq(examAnnotations.author_id, callerId) : undefined,
      ),
    )
    .orderBy(asc(examAnnotations.created_at), asc(examAnnotations.id));
  return { submission_id: submissionId, layer, annotations: rows.map(recordOf) };
}

/**
 * PUT /api/exam/annotations/{annotation_id}: stores one shape under the client's id, or replaces it
 * (its script and layer stay). Refused: 404 when the script is not visible, or the id names a shape of
 * another script (or one the caller may not know of); the batch gate's 403 and 409 (action `annotate`,
 * or `second_mark` for the second marking's layer, which also needs the script in the moderation
 * sample); 400 for a page beyond the script's or a question or rubric item not of the batch's paper.
 * The same id saved twice, even at once, is one shape.
 */
export async function saveAnnotation(tx: Tx, callerId: string, input: z.input<typeof saveAnnotationInput>): Promise<AnnotationRecord> {
  const { annotation_id: id, body } = saveAnnotationInput.parse(input);
  const layer = body.layer ?? "marking";
  const submission = await lockedScript(tx, body.submission_id);
  const batch = await openBatchFor(tx, callerId, submission.batch_id, actionOf(layer));
  if (layer === "second_marking") {
    const [sampled] = await tx.select({ id: examModerationScripts.submission_id }).from(examModerationScripts).where(eq(examModerationScripts.submission_id, submission.id));
    if (!sampled) throw new AppError("conflict", "This script is not in the batch's moderation sample: a second marker annotates only sampled scripts");
  }
  const pages = await pagesOfScript(tx, submission, batch);
  if (pages !== null && body.page > pages) throw new AppError("invalid", `Page: this script has ${pages} page${pages === 1 ? "" : "s"}, not ${body.page}`, "page");
  const { questionId, rubricItemId, label } = await references(tx, batch, body);
  const shape = { page: body.page, kind: body.kind, geometry: body.geometry, text: label, question_id: questionId, rubric_item_id: rubricItemId };

  let existing = await knownAnnotation(tx, callerId, id);
  if (!existing) {
    const [inserted] = await tx
      .insert(examAnnotations)
      .values({ id, batch_id: batch.id, submission_id: submission.id, layer, author_id: callerId, ...shape })
      .onConflictDoNothing({ target: examAnnotations.id })
      .returning();
    if (inserted) return recordOf(inserted);
    // The id is taken: by a save of the same shape that committed meanwhile, or by a shape the caller cannot see.
    existing = await knownAnnotation(tx, callerId, id);
    if (!existing) throw notFound("Annotation");
  }
  sameShape(existing, submission.id, layer);
  const [updated] = await tx
    .update(examAnnotations)
    .set({ ...shape, updated_at: sql`now()` })
    .where(eq(examAnnotations.id, id))
    .returning();
  if (!updated) throw notFound("Annotation");
  return recordOf(updated);
}

/**
 * DELETE /api/exam/annotations/{annotation_id}: removes one shape. 404 when the caller does not know of
 * it (already removed included: a client retrying a removal takes 404 as done); the batch gate's 403 and
 * 409 as for a save.
 */
export async function removeAnnotation(tx: Tx, callerId: string, input: z.input<typeof removeAnnotationInput>): Promise<z.output<typeof removedAnnotationOutput>> {
  const { annotation_id: id } = removeAnnotationInput.parse(input);
  const known = await knownAnnotation(tx, callerId, id);
  if (!known) throw notFound("Annotation");
  const [submission] = await tx.select({ id: examSubmissions.id }).from(examSubmissions).where(eq(examSubmissions.id, known.submission_id)).for("update");
  if (!submission) throw notFound("Annotation");
  await openBatchFor(tx, callerId, known.batch_id, actionOf(known.layer)).catch((error: unknown) => {
    // A student who reads their released script's shapes does not see its batch: the shape is not theirs to know of.
    throw error instanceof AppError && error.code === "not_found" ? notFound("Annotation") : error;
  });
  const [removed] = await tx.delete(examAnnotations).where(eq(examAnnotations.id, id)).returning({ id: examAnnotations.id });
  if (!removed) throw notFound("Annotation");
  return removed;
}
