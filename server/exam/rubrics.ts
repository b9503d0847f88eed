import { and, asc, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { type Tx, rowsOf } from "../db/client";
import { examMarkEntries, examQuestions, examRubricEdits, examRubricItems, users } from "../db/schema";
import { AppError, notFound } from "../errors";
import { decimal, integer, text } from "../../lib/rules/input-rules";
import { recordId } from "../http/record-id";
import { findOwnTemplateForUpdate } from "./own-template";

/**
 * Rubrics: a question's mark scheme as items a marker applies, each a short text worth points (plus or
 * minus). A mark made of items carries them in its mark_scheme_detail and is their sum within
 * 0..max_marks (app.rubric_mark in server/db/sql/functions/; marks.ts applies it on every write). Changing an item's
 * points, or deleting it, re-scores every mark that used it in the open batches of the template, in the
 * same transaction, with an audit row per mark (app.rescore_rubric_marks). Only the template's owner
 * changes its rubric, as its questions.
 */

/**
 * The first key of the advisory lock of a question's rubric (the second is the question id's hash):
 * mark writes applying items hold it shared, a re-score exclusively (marks.ts, app.rescore_rubric_marks).
 */
export const RUBRIC_LOCK_CLASS = 1917;

/** Items a question may have: keys 1–9 and 0 apply the first ten; the rest are clicked. */
const MAX_RUBRIC_ITEMS = 50;

/** mark_scheme_detail of a mark made of rubric items: the items applied, each once. */
export const rubricMarkDetail = z.strictObject({
  type: z.literal("rubric"),
  items: z
    .array(z.uuid("must be rubric item ids"))
    .max(MAX_RUBRIC_ITEMS, `must list at most ${MAX_RUBRIC_ITEMS} items`)
    .refine((ids) => new Set(ids.map((id) => id.toLowerCase())).size === ids.length, "must list each item once"),
});
export type RubricMarkDetail = z.output<typeof rubricMarkDetail>;

/** True when a mark_scheme_detail says it is made of rubric items (and must then be a rubricMarkDetail). */
export const isRubricDetail = (detail: unknown): boolean =>
  typeof detail === "object" && detail !== null && !Array.isArray(detail) && (detail as { type?: unknown }).type === "rubric";

const itemFields = {
  text: text(500).trim().min(1, "text is required"),
  points: decimal(8, 2),
  spec_ref: text(200).trim().nullable(),
  comment: text(2000).nullable(),
  position: integer({ min: 0, max: 10_000 }),
};

const createRubricItemBody = z.object({
  text: itemFields.text,
  points: itemFields.points,
  spec_ref: itemFields.spec_ref.optional(),
  comment: itemFields.comment.optional(),
  position: itemFields.position.optional().describe("Where the item goes (0 first); after the others when left out"),
});
export const createRubricItemInput = z.object({ question_id: recordId("Question"), body: createRubricItemBody });

/** Every field optional; a change of points re-scores the marks that used the item. */
const editRubricItemBody = z.object({
  text: itemFields.text.optional(),
  points: itemFields.points.optional(),
  spec_ref: itemFields.spec_ref.optional(),
  comment: itemFields.comment.optional(),
  position: itemFields.position.optional(),
});
export const rubricItemIdInput = z.object({ item_id: recordId("Rubric item") });
export const editRubricItemInput = rubricItemIdInput.extend({ body: editRubricItemBody });
export const questionIdInput = z.object({ question_id: recordId("Question") });

export const rubricItemOutput = z.object({
  id: z.uuid(),
  template_id: z.uuid(),
  question_id: z.uuid(),
  position: z.number().int(),
  text: z.string(),
  points: z.number(),
  spec_ref: z.string().nullable(),
  comment: z.string().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
});
export type RubricItem = z.output<typeof rubricItemOutput>;

/** A rubric change's answer: the item as it now is, and how many marks were re-scored. */
export const rubricChangeOutput = z.object({
  item: rubricItemOutput,
  marks_rescored: z.number().int().describe("Marks of the template's open batches whose mark or items changed"),
});
export const rubricDeleteOutput = z.object({ id: z.uuid(), marks_rescored: z.number().int() });

/** What an audit row keeps of an item (the fields changed), or of the question (max_marks). */
const rubricEditSnapshot = z
  .object({
    text: z.string(),
    points: z.number(),
    spec_ref: z.string().nullable(),
    comment: z.string().nullable(),
    position: z.number(),
    max_marks: z.number().nullable(),
  })
  .partial();

const rubricEditOutput = z.object({
  id: z.uuid(),
  question_id: z.uuid(),
  rubric_item_id: z.uuid().nullable(),
  kind: z.enum(["created", "changed", "deleted", "max_marks"]),
  edited_by: z.uuid().nullable(),
  edited_by_name: z.string().nullable(),
  edited_at: z.date(),
  before: rubricEditSnapshot.nullable(),
  after: rubricEditSnapshot.nullable(),
  marks_rescored: z.number().int(),
});
export const rubricHistoryOutput = z.object({ edits: z.array(rubricEditOutput) });

type ItemRow = typeof examRubricItems.$inferSelect;

const rubricItemFromRow = (row: ItemRow): RubricItem => ({ ...row, points: Number(row.points) });

/** An item as its audit rows keep it. */
const snapshotOf = (item: RubricItem) => ({ text: item.text, points: item.points, spec_ref: item.spec_ref, comment: item.comment, position: item.position });

/** The rubric items of a template's questions, in marking order (question, then position). */
export async function listRubricItems(tx: Tx, templateId: string): Promise<RubricItem[]> {
  const rows = await tx
    .select()
    .from(examRubricItems)
    .where(eq(examRubricItems.template_id, templateId))
    .orderBy(asc(examRubricItems.question_id), asc(examRubricItems.position), asc(examRubricItems.created_at));
  return rows.map(rubricItemFromRow);
}

/** A visible question whose template the caller owns, locked with it; a container takes no items. */
async function ownLeafQuestion(tx: Tx, callerId: string, questionId: string) {
  const [question] = await tx.select().from(examQuestions).where(eq(examQuestions.id, questionId));
  if (!question) throw notFound("Question");
  await findOwnTemplateForUpdate(tx, callerId, question.template_id, "Only the template's owner can change its rubric");
  if (question.is_container) {
    throw new AppError("invalid", `Question ${question.label} takes no mark itself: give its parts rubric items`, "question_id");
  }
  return question;
}

/** A visible item whose template the caller owns, locked for the change. */
async function ownItemForUpdate(tx: Tx, callerId: string, itemId: string): Promise<RubricItem> {
  const [item] = await tx.select().from(examRubricItems).where(eq(examRubricItems.id, itemId));
  if (!item) throw notFound("Rubric item");
  await findOwnTemplateForUpdate(tx, callerId, item.template_id, "Only the template's owner can change its rubric");
  const [locked] = await tx.select().from(examRubricItems).where(eq(examRubricItems.id, itemId)).for("update");
  if (!locked) throw notFound("Rubric item");
  return rubricItemFromRow(locked);
}

async function recordEdit(
  tx: Tx,
  callerId: string,
  edit: { template_id: string; question_id: string; rubric_item_id: string | null; kind: "created" | "changed" | "deleted" | "max_marks"; before: object | null; after: object | null },
): Promise<string> {
  const [row] = await tx
    .insert(examRubricEdits)
    .values({ ...edit, edited_by: callerId })
    .returning({ id: examRubricEdits.id });
  return row!.id;
}

/** Re-scores the marks an edit touches (app.rescore_rubric_marks) and answers how many changed. */
async function rescore(tx: Tx, editId: string): Promise<number> {
  const [row] = rowsOf<{ count: number }>(await tx.execute(sql`select app.rescore_rubric_marks(${editId}::uuid) as count`));
  return Number(row!.count);
}

/** POST /api/exam/questions/{question_id}/rubric-items: a new item, applied by no mark yet. */
export async function createRubricItem(tx: Tx, callerId: string, input: z.input<typeof createRubricItemInput>): Promise<RubricItem> {
  const { question_id: questionId, body } = createRubricItemInput.parse(input);
  const question = await ownLeafQuestion(tx, callerId, questionId);
  const [{ count, last } = { count: 0, last: -1 }] = await tx
    .select({ count: sql<number>`count(*)::int`, last: sql<number>`coalesce(max(${examRubricItems.position}), -1)::int` })
    .from(examRubricItems)
    .where(eq(examRubricItems.question_id, questionId));
  if (count >= MAX_RUBRIC_ITEMS) {
    throw new AppError("invalid", `Question ${question.label} already has ${MAX_RUBRIC_ITEMS} rubric items, the most a question can have`, "question_id");
  }
  const position = body.position ?? last + 1;
  await makeRoomAt(tx, questionId, position);
  const [row] = await tx
    .insert(examRubricItems)
    .values({
      template_id: question.template_id,
      question_id: questionId,
      position,
      text: body.text,
      points: body.points.toFixed(2),
      spec_ref: body.spec_ref ?? null,
      comment: body.comment ?? null,
    })
    .returning();
  const item = rubricItemFromRow(row!);
  await recordEdit(tx, callerId, { template_id: item.template_id, question_id: questionId, rubric_item_id: item.id, kind: "created", before: null, after: snapshotOf(item) });
  return item;
}

/** Items at `position` and after move one down, so that a new or moved item can take it. */
async function makeRoomAt(tx: Tx, questionId: string, position: number, except?: string) {
  await tx
    .update(examRubricItems)
    .set({ position: sql`${examRubricItems.position} + 1` })
    .where(
      and(
        eq(examRubricItems.question_id, questionId),
        sql`${examRubricItems.position} >= ${position}`,
        except ? sql`${examRubricItems.id} <> ${except}` : undefined,
      ),
    );
}

/**
 * PATCH /api/exam/rubric-items/{item_id}: changes an item. New points re-score, at once, every mark
 * made of it in the template's open batches (their awarded_marks is their items' sum again, within
 * 0..max_marks), each with an audit row; marks of archived batches keep their score.
 */
export async function editRubricItem(tx: Tx, callerId: string, input: z.input<typeof editRubricItemInput>): Promise<z.output<typeof rubricChangeOutput>> {
  const { item_id: itemId, body } = editRubricItemInput.parse(input);
  const before = await ownItemForUpdate(tx, callerId, itemId);
  const changes = {
    ...(body.text !== undefined && body.text !== before.text && { text: body.text }),
    ...(body.points !== undefined && body.points !== before.points && { points: body.points.toFixed(2) }),
    ...(body.spec_ref !== undefined && body.spec_ref !== before.spec_ref && { spec_ref: body.spec_ref }),
    ...(body.comment !== undefined && body.comment !== before.comment && { comment: body.comment }),
    ...(body.position !== undefined && body.position !== before.position && { position: body.position }),
  };
  if (Object.keys(changes).length === 0) return { item: before, marks_rescored: 0 };
  if (changes.position !== undefined) await makeRoomAt(tx, before.question_id, changes.position, itemId);
  const [row] = await tx
    .update(examRubricItems)
    .set({ ...changes, updated_at: new Date() })
    .where(eq(examRubricItems.id, itemId))
    .returning();
  const item = rubricItemFromRow(row!);
  const changed = Object.keys(changes) as (keyof ReturnType<typeof snapshotOf>)[];
  const editId = await recordEdit(tx, callerId, {
    template_id: item.template_id,
    question_id: item.question_id,
    rubric_item_id: itemId,
    kind: "changed",
    before: Object.fromEntries(changed.map((field) => [field, snapshotOf(before)[field]])),
    after: Object.fromEntries(changed.map((field) => [field, snapshotOf(item)[field]])),
  });
  const marksRescored = changes.points === undefined ? 0 : await rescore(tx, editId);
  return { item, marks_rescored: marksRescored };
}

/**
 * DELETE /api/exam/rubric-items/{item_id}: the item goes, and the marks made of it in the open batches
 * lose it and are re-scored (audited as an edit). Marks of archived batches keep their score and list.
 */
export async function deleteRubricItem(tx: Tx, callerId: string, input: z.input<typeof rubricItemIdInput>): Promise<z.output<typeof rubricDeleteOutput>> {
  const { item_id: itemId } = rubricItemIdInput.parse(input);
  const item = await ownItemForUpdate(tx, callerId, itemId);
  await tx.delete(examRubricItems).where(eq(examRubricItems.id, itemId));
  const editId = await recordEdit(tx, callerId, {
    template_id: item.template_id,
    question_id: item.question_id,
    rubric_item_id: itemId,
    kind: "deleted",
    before: snapshotOf(item),
    after: null,
  });
  return { id: itemId, marks_rescored: await rescore(tx, editId) };
}

/**
 * A question's maximum changed (PATCH /questions/{id}): its rubric marks are their items' sums within
 * the new range again. Recorded as an edit of the rubric when the question has rubric marks.
 */
export async function rescoreForMaxMarks(tx: Tx, callerId: string, question: { id: string; template_id: string }, before: number | null, after: number | null) {
  const [used] = await tx
    .select({ id: examMarkEntries.id })
    .from(examMarkEntries)
    .where(and(eq(examMarkEntries.question_id, question.id), sql`${examMarkEntries.mark_scheme_detail} ->> 'type' = 'rubric'`))
    .limit(1);
  if (!used) return 0;
  const editId = await recordEdit(tx, callerId, {
    template_id: question.template_id,
    question_id: question.id,
    rubric_item_id: null,
    kind: "max_marks",
    before: { max_marks: before },
    after: { max_marks: after },
  });
  return rescore(tx, editId);
}

/** GET /api/exam/questions/{question_id}/rubric-edits: the question's rubric changes, newest first. */
export async function listRubricEdits(tx: Tx, input: z.input<typeof questionIdInput>): Promise<z.output<typeof rubricHistoryOutput>> {
  const { question_id: questionId } = questionIdInput.parse(input);
  const [question] = await tx.select({ id: examQuestions.id }).from(examQuestions).where(eq(examQuestions.id, questionId));
  if (!question) throw notFound("Question");
  const rows = await tx
    .select({ edit: examRubricEdits, edited_by_name: users.full_name })
    .from(examRubricEdits)
    .leftJoin(users, eq(users.id, examRubricEdits.edited_by))
    .where(eq(examRubricEdits.question_id, questionId))
    .orderBy(desc(examRubricEdits.edited_at), desc(examRubricEdits.id));
  return {
    edits: rows.map(({ edit, edited_by_name }) => ({
      ...edit,
      kind: edit.kind as z.output<typeof rubricEditOutput>["kind"],
      edited_by_name: edited_by_name ?? null,
      before: edit.before as z.output<typeof rubricEditOutput>["before"],
      after: edit.after as z.output<typeof rubricEditOutput>["after"],
    })),
  };
}
