import { eq, getTableColumns, sql } from "drizzle-orm";
import { z } from "zod";
import { type Tx, rowsOf } from "../db/client";
import { examBatches, examMarkEntries, examQuestions, examSubmissions } from "../db/schema";
import { AppError, notFound } from "../errors";
import { FOREIGN_KEY_VIOLATION, UNIQUE_VIOLATION, postgresErrorCode } from "./postgres-errors";

/** MarkUpsertRequest. The last four fields are written only when supplied. */
export const markUpsertBody = z.object({
  submission_id: z.uuid("submission_id must be a submission id"),
  question_id: z.uuid("question_id must be a question id"),
  awarded_marks: z.number("awarded_marks must be a number").multipleOf(0.01, "awarded_marks has at most two decimals").nullable(),
  mark_scheme_detail: z.json().optional(),
  annotation_shape_ids: z.array(z.string().max(200)).max(1000).optional(),
  comment: z.string().max(10000).nullable().optional(),
  confirmed: z.boolean().optional(),
});
export const upsertMarkInput = z.object({ mark_id: z.uuid("mark id must be a UUID"), body: markUpsertBody });

export const markOutput = z.object({
  id: z.uuid(),
  submission_id: z.uuid(),
  question_id: z.uuid(),
  batch_id: z.uuid(),
  awarded_marks: z.number().nullable(),
  mark_scheme_detail: z.json().nullable(),
  annotation_shape_ids: z.array(z.string()).nullable(),
  comment: z.string().nullable(),
  confirmed: z.boolean(),
  marked_by: z.literal("teacher"),
  marked_by_user_id: z.uuid().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
});

type MarkRow = typeof examMarkEntries.$inferSelect;

export function markFromRow(row: MarkRow): z.output<typeof markOutput> {
  return {
    ...row,
    awarded_marks: row.awarded_marks === null ? null : Number(row.awarded_marks),
    mark_scheme_detail: (row.mark_scheme_detail ?? null) as z.output<typeof markOutput>["mark_scheme_detail"],
    marked_by: "teacher",
  };
}

/**
 * PUT /api/exam/marks/{mark_id}: upserts the mark of one (submission, question).
 * - The submission must be visible with its batch (404); batch_id is taken from it, never the client.
 * - An archived batch refuses marks (409).
 * - The question must be a leaf of the batch's template (400 naming question_id), awarded_marks within
 *   0..max_marks (400 naming awarded_marks).
 * - A new entry takes mark_id as its id; an existing entry of the pair keeps its id. A mark_id that
 *   already names the entry of another pair is a 409.
 * - Status: absent or unmatched moves to marking; when every leaf question has a confirmed mark with a
 *   value the submission is complete, and it moves back to marking when that stops being true.
 * Concurrency: the submission row is locked first, so writes to one submission run one after the
 * other and the completeness check always sees every committed mark of it.
 */
export async function upsertMark(tx: Tx, callerId: string, input: z.input<typeof upsertMarkInput>) {
  const { mark_id: markId, body } = upsertMarkInput.parse(input);
  // One statement: the submission (locked, so writes to one submission run one after the other),
  // its batch, and the question; only the columns the rules read. Under row-level security a
  // submission the caller may not mark (another school's, or a student's own) is not returned: 404.
  const [found] = await tx
    .select({
      submissionId: examSubmissions.id,
      batchId: examSubmissions.batch_id,
      status: examSubmissions.status,
      batchStatus: examBatches.status,
      templateId: examBatches.template_id,
      question: { id: examQuestions.id, templateId: examQuestions.template_id, label: examQuestions.label, isContainer: examQuestions.is_container, maxMarks: examQuestions.max_marks },
    })
    .from(examSubmissions)
    .innerJoin(examBatches, eq(examBatches.id, examSubmissions.batch_id))
    .leftJoin(examQuestions, eq(examQuestions.id, body.question_id))
    .where(eq(examSubmissions.id, body.submission_id))
    .for("update", { of: examSubmissions });
  if (!found) throw notFound("Submission");
  const { question } = found;
  if (found.batchStatus === "archived") throw new AppError("conflict", "The batch is archived: it accepts no more marks");
  if (!question) throw notFound("Question");
  if (question.templateId !== found.templateId) {
    throw new AppError("invalid", "question_id: the question belongs to another template than this batch's", "question_id");
  }
  if (question.isContainer) {
    throw new AppError("invalid", `question_id: question ${question.label} is a container; marks go on its parts`, "question_id");
  }
  if (body.awarded_marks !== null) {
    const max = question.maxMarks === null ? null : Number(question.maxMarks);
    if (body.awarded_marks < 0 || (max !== null && body.awarded_marks > max)) {
      throw new AppError("invalid", `awarded_marks: must be between 0 and ${max ?? "any"} for question ${question.label}`, "awarded_marks");
    }
  }

  const supplied = {
    ...(body.mark_scheme_detail !== undefined && { mark_scheme_detail: body.mark_scheme_detail }),
    ...(body.annotation_shape_ids !== undefined && { annotation_shape_ids: body.annotation_shape_ids }),
    ...(body.comment !== undefined && { comment: body.comment }),
    ...(body.confirmed !== undefined && { confirmed: body.confirmed }),
  };
  const awarded = body.awarded_marks === null ? null : body.awarded_marks.toFixed(2);
  let saved: (MarkRow & { leaves: number; confirmedElsewhere: number }) | undefined;
  try {
    // The submission's progress comes back with the mark: subqueries in RETURNING read the snapshot
    // taken after the lock above, i.e. every other committed mark of the submission, but not this
    // one, whose own state is in the returned row. One round trip instead of two.
    [saved] = await tx
      .insert(examMarkEntries)
      .values({
        id: markId,
        submission_id: found.submissionId,
        question_id: question.id,
        batch_id: found.batchId,
        awarded_marks: awarded,
        marked_by: "teacher",
        marked_by_user_id: callerId,
        ...supplied,
      })
      .onConflictDoUpdate({
        target: [examMarkEntries.submission_id, examMarkEntries.question_id],
        set: { awarded_marks: awarded, marked_by: "teacher", marked_by_user_id: callerId, updated_at: new Date(), ...supplied },
      })
      .returning({
        ...getTableColumns(examMarkEntries),
        leaves: leafQuestionCount(found.templateId),
        confirmedElsewhere: confirmedMarkCount(found.submissionId, found.templateId, question.id),
      });
  } catch (error) {
    if (postgresErrorCode(error) === UNIQUE_VIOLATION) {
      throw new AppError("conflict", "mark id already names the mark of another submission or question");
    }
    if (postgresErrorCode(error) === FOREIGN_KEY_VIOLATION) {
      // The owner replaced the canvas while this mark was being written (the question row is gone).
      throw new AppError("conflict", "The template's questions changed while marking; reload and try again");
    }
    throw error;
  }
  if (!saved) throw new AppError("internal", "The mark could not be saved");
  const { leaves, confirmedElsewhere, ...mark } = saved;

  const confirmed = Number(confirmedElsewhere) + (isConfirmedValue(mark) ? 1 : 0);
  const nextStatus = nextSubmissionStatus(found.status, Number(leaves), confirmed);
  if (nextStatus !== found.status) {
    await tx.update(examSubmissions).set({ status: nextStatus, updated_at: new Date() }).where(eq(examSubmissions.id, found.submissionId));
  }
  return markFromRow(mark);
}

export type SubmissionStatus = (typeof examSubmissions.$inferSelect)["status"];

/**
 * The status rule of marks: complete when every leaf question has a confirmed mark with a value;
 * otherwise absent, unmatched and complete become marking and the other statuses stay.
 */
function nextSubmissionStatus(current: SubmissionStatus, leaves: number, confirmed: number): SubmissionStatus {
  if (leaves > 0 && confirmed === leaves) return "complete";
  if (current === "absent" || current === "unmatched" || current === "complete") return "marking";
  return current;
}

const isConfirmedValue = (mark: Pick<MarkRow, "confirmed" | "awarded_marks">) => mark.confirmed && mark.awarded_marks !== null;

const leafQuestionCount = (templateId: string) =>
  sql<number>`(select count(*)::int from ${examQuestions} where ${examQuestions.template_id} = ${templateId} and not ${examQuestions.is_container})`;

/** Confirmed marks with a value on leaf questions of the template, but the one of `exceptQuestionId`. */
const confirmedMarkCount = (submissionId: string, templateId: string, exceptQuestionId: string | null) =>
  sql<number>`(select count(*)::int from ${examMarkEntries} m join ${examQuestions} q on q.id = m.question_id
    where m.submission_id = ${submissionId} and q.template_id = ${templateId} and not q.is_container
      and m.confirmed and m.awarded_marks is not null and m.question_id is distinct from ${exceptQuestionId})`;

/** The status of a submission by the rule above, from its marks as they stand in this transaction. */
export async function statusAfterMark(tx: Tx, submissionId: string, templateId: string, current: SubmissionStatus): Promise<SubmissionStatus> {
  const [counts] = rowsOf<{ leaves: number; confirmed: number }>(
    await tx.execute(sql`select ${leafQuestionCount(templateId)} as leaves, ${confirmedMarkCount(submissionId, templateId, null)} as confirmed`),
  );
  return nextSubmissionStatus(current, Number(counts?.leaves ?? 0), Number(counts?.confirmed ?? 0));
}
