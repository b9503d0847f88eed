import { and, asc, desc, eq, isNull, or, sql } from "drizzle-orm";
import { z } from "zod";
import { decimal, text } from "../../../lib/rules/input-rules";
import type { Tx } from "../../db/client";
import { INSUFFICIENT_PRIVILEGE, postgresErrorCode } from "../../db/postgres-errors";
import { examBatches, examMarkEntries, examQuestions, examReviewRequests, examSubmissions, users } from "../../db/schema";
import { AppError, notFound } from "../../errors";
import { recordId } from "../../http/record-id";
import { batchNames, submissionInMessage } from "../anonymity";
import { isHeadOf, openBatchFor } from "../batch-gate";
import { queueStudentNotice } from "../../notifications/student-notices";
import { myReleasedBatches } from "./released-batches";

/**
 * Review requests (issue 35, item 6): while a release is open for review, a student asks for one
 * question of their script to be looked at again, with a reason; the request goes to that question's
 * marker (or the owner; a signed-off batch's to its department heads), who answers it: the mark kept or
 * changed, with a reply. The student sees the outcome. Every change of the mark is kept in
 * exam_mark_history with the request's reply as its reason (app.keep_mark_history).
 *
 * What the database does itself (drizzle/0028…, server/db/sql/functions/fill_review_request.sql): it fills
 * the request's batch, the mark before and who it goes to, which the student may not read; its insert
 * policy refuses a script not released to the caller, or a batch whose reviews are closed.
 */

export const requestReviewInput = z.object({
  submission_id: recordId("Script"),
  question_id: z.uuid({ error: "Say which question to look at again (question_id)" }),
  reason: text(2000, "Say why the question should be looked at again (reason)")
    .trim()
    .min(1, "Say why the question should be looked at again (reason)"),
});

export const answerReviewInput = z.object({
  request_id: recordId("Review request"),
  outcome: z.enum(["kept", "changed"], { error: "Say whether the mark is kept or changed (outcome: kept or changed)" }),
  /** The new mark, when changed. */
  awarded_marks: decimal(8, 2, { min: 0 }).optional(),
  reply: text(2000, "Write a reply to the student (reply)").trim().min(1, "Write a reply to the student (reply)"),
});

/** The new mark goes with a change, and only with one. */
function newMarkProblem({ outcome, awarded_marks }: z.output<typeof answerReviewInput>): string | null {
  if (outcome === "changed" && awarded_marks === undefined) return "awarded_marks: give the new mark when the mark is changed";
  if (outcome === "kept" && awarded_marks !== undefined) return "awarded_marks: a kept mark takes no new mark, leave it out";
  return null;
}

export const reviewQueueInput = z.object({
  batch_id: z.uuid({ error: "batch_id must be a batch id" }).optional(),
  status: z.enum(["open", "answered"]).optional(),
});

const marks = z.number().nullable();
export const reviewRequestOutput = z.object({
  id: z.uuid(),
  batch_id: z.uuid(),
  submission_id: z.uuid(),
  question_id: z.uuid(),
  question_label: z.string(),
  reason: z.string(),
  status: z.enum(["open", "answered"]),
  marks_before: marks,
  marks_after: marks,
  outcome: z.enum(["kept", "changed"]).nullable(),
  reply: z.string().nullable(),
  answered_at: z.iso.datetime({ offset: true }).nullable(),
  created_at: z.iso.datetime({ offset: true }),
});
/** Staff see whose script it is as the batch shows it ("Script 17" in an anonymous batch) and who it went to. */
const queuedReviewOutput = reviewRequestOutput.extend({
  batch_title: z.string(),
  script: z.string(),
  assigned_to: z.uuid().nullable(),
  assigned_to_name: z.string().nullable(),
  max_marks: marks,
});
export const myReviewsOutput = z.object({ requests: z.array(reviewRequestOutput) });
export const reviewQueueOutput = z.object({ requests: z.array(queuedReviewOutput) });

type RequestRow = typeof examReviewRequests.$inferSelect;
const number = (value: string | null) => (value === null ? null : Number(value));
const iso = (value: Date | null) => (value === null ? null : value.toISOString());

function presentRequest(row: RequestRow, questionLabel: string): z.input<typeof reviewRequestOutput> {
  return {
    id: row.id,
    batch_id: row.batch_id,
    submission_id: row.submission_id,
    question_id: row.question_id,
    question_label: questionLabel,
    reason: row.reason,
    status: row.status,
    marks_before: number(row.marks_before),
    marks_after: number(row.marks_after),
    outcome: row.outcome,
    reply: row.reply,
    answered_at: iso(row.answered_at),
    created_at: row.created_at.toISOString(),
  };
}

const dateFormat = new Intl.DateTimeFormat("en-GB", { day: "numeric", month: "long", year: "numeric", timeZone: "UTC" });

const mayNotChange = "You may not change this mark: it is another marker's to write.";

/** A write that row-level security refuses, as the sentence that says why. */
async function refusedAs<T>(refusal: AppError, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (postgresErrorCode(error) === INSUFFICIENT_PRIVILEGE) throw refusal;
    throw error;
  }
}

/**
 * The student asks for one question of their released script to be looked at again. 404 for a script
 * that is not theirs or not released (as for one that does not exist); 409 when the batch takes no
 * reviews, when they closed, or when the question already has an open request; 400 for a question that
 * is not a marked question of the paper.
 */
export async function requestReview(tx: Tx, callerId: string, input: z.input<typeof requestReviewInput>) {
  const { submission_id: submissionId, question_id: questionId, reason } = requestReviewInput.parse(input);
  const [submission] = await tx.select().from(examSubmissions).where(and(eq(examSubmissions.id, submissionId), eq(examSubmissions.student_id, callerId)));
  const batch = submission && (await myReleasedBatches(tx, submission.batch_id)).get(submission.batch_id);
  if (!submission || !batch) throw notFound("Script");
  if (batch.reviews_until === null) throw new AppError("conflict", "Your teacher has not opened this paper for review requests.");
  const until = new Date(batch.reviews_until);
  if (until.getTime() <= Date.now()) throw new AppError("conflict", `Review requests for this paper closed on ${dateFormat.format(until)}.`);
  const [question] = await tx
    .select({ label: examQuestions.label, isContainer: examQuestions.is_container })
    .from(examQuestions)
    .innerJoin(examMarkEntries, and(eq(examMarkEntries.question_id, examQuestions.id), eq(examMarkEntries.submission_id, submissionId)))
    .where(eq(examQuestions.id, questionId));
  if (!question || question.isContainer) throw new AppError("invalid", "question_id: pick a marked question of this paper", "question_id");
  // The policy asks again whether reviews are open, at the insert's own time.
  const [created] = await refusedAs(new AppError("conflict", "Review requests for this paper are closed."), () =>
    tx
      .insert(examReviewRequests)
      .values({ submission_id: submissionId, question_id: questionId, batch_id: submission.batch_id, student_id: callerId, reason })
      .onConflictDoNothing()
      .returning(),
  );
  if (!created) throw new AppError("conflict", `You have already asked for question ${question.label} to be looked at again: its answer will show here.`);
  return presentRequest(created, question.label);
}

/** The caller's own review requests, newest first: what a student sees of the outcomes. */
export async function myReviewRequests(tx: Tx, callerId: string, { submission_id }: { submission_id?: string } = {}) {
  const rows = await tx
    .select({ request: examReviewRequests, label: examQuestions.label })
    .from(examReviewRequests)
    .innerJoin(examQuestions, eq(examQuestions.id, examReviewRequests.question_id))
    .where(and(eq(examReviewRequests.student_id, callerId), submission_id ? eq(examReviewRequests.submission_id, submission_id) : undefined))
    .orderBy(desc(examReviewRequests.created_at));
  return { requests: rows.map((row) => presentRequest(row.request, row.label)) };
}

/**
 * The queue beside the marking screen: the requests of the batches the caller sees that are theirs to
 * answer (assigned to them; every request of a batch they own; a signed-off batch's for its department
 * heads), open first, oldest first.
 */
export async function reviewQueue(tx: Tx, callerId: string, input: z.input<typeof reviewQueueInput> = {}) {
  const { batch_id: batchId, status } = reviewQueueInput.parse(input);
  const headOf = sql`${examBatches.institute_id} in (select app.my_head_institute_ids())`;
  const rows = await tx
    .select({
      request: examReviewRequests,
      label: examQuestions.label,
      max: examQuestions.max_marks,
      batch: examBatches,
      scriptNumber: examSubmissions.script_number,
      studentName: examSubmissions.student_name,
      assignee: users.display_name,
    })
    .from(examReviewRequests)
    .innerJoin(examBatches, eq(examBatches.id, examReviewRequests.batch_id))
    .innerJoin(examSubmissions, eq(examSubmissions.id, examReviewRequests.submission_id))
    .innerJoin(examQuestions, eq(examQuestions.id, examReviewRequests.question_id))
    .leftJoin(users, eq(users.id, examReviewRequests.assigned_to))
    .where(
      and(
        batchId ? eq(examReviewRequests.batch_id, batchId) : undefined,
        status ? eq(examReviewRequests.status, status) : undefined,
        or(
          eq(examReviewRequests.assigned_to, callerId),
          eq(examBatches.teacher_id, callerId),
          and(isNull(examReviewRequests.assigned_to), headOf),
          and(eq(examBatches.signed_off, true), headOf),
        ),
      ),
    )
    .orderBy(desc(sql`${examReviewRequests.status} = 'open'`), asc(examReviewRequests.created_at));
  return {
    requests: rows.map((row) => ({
      ...presentRequest(row.request, row.label),
      batch_title: row.batch.title,
      script: submissionInMessage({ student_id: null, student_name: row.studentName, script_number: row.scriptNumber }, batchNames(row.batch), "A student"),
      assigned_to: row.request.assigned_to,
      assigned_to_name: row.assignee,
      max_marks: number(row.max),
    })),
  };
}

/**
 * Answers an open request: the mark kept, or changed to `awarded_marks` (within the question's maximum),
 * with a reply for the student. Only one answer applies: the request is claimed by an update that
 * requires it open, so a second answer at the same time finds it answered (409) and changes nothing.
 * Who may answer: the request's assignee, the batch's owner, a department head of its school; the mark
 * itself is written under the mark's own rules (row-level security), and a signed-off batch takes no
 * change (its head reopens it first: 409, the batch gate's sentence). A changed mark keeps its previous
 * value in the history with the reply as the reason, and drops a rubric breakdown it no longer equals.
 */
export async function answerReviewRequest(tx: Tx, callerId: string, input: z.input<typeof answerReviewInput>) {
  const answer = answerReviewInput.parse(input);
  const problem = newMarkProblem(answer);
  if (problem) throw new AppError("invalid", problem, "awarded_marks");
  const { request_id: requestId, outcome, awarded_marks: newMarks, reply } = answer;
  const [current] = await tx
    .select({ request: examReviewRequests, batch: examBatches, label: examQuestions.label, max: examQuestions.max_marks })
    .from(examReviewRequests)
    .innerJoin(examBatches, eq(examBatches.id, examReviewRequests.batch_id))
    .innerJoin(examQuestions, eq(examQuestions.id, examReviewRequests.question_id))
    .where(eq(examReviewRequests.id, requestId));
  if (!current) throw notFound("Review request");
  const { request, batch } = current;
  const mayAnswer = request.assigned_to === callerId || batch.teacher_id === callerId || (await isHeadOf(tx, callerId, batch.institute_id));
  if (!mayAnswer) throw new AppError("forbidden", "This review request went to another marker: they, the batch's owner or a head of department answer it.");
  if (outcome === "changed") {
    await openBatchFor(tx, callerId, batch, "mark");
    if (current.max !== null && newMarks! > Number(current.max))
      throw new AppError("invalid", `awarded_marks: question ${current.label} is out of ${Number(current.max)}`, "awarded_marks");
  }
  const [answered] = await tx
    .update(examReviewRequests)
    .set({ status: "answered", outcome, reply, answered_by: callerId, answered_at: new Date() })
    .where(and(eq(examReviewRequests.id, requestId), eq(examReviewRequests.status, "open")))
    .returning();
  if (!answered) throw new AppError("conflict", "This review request has already been answered: reload to see the answer.");
  let after = answered.marks_before;
  if (outcome === "changed") {
    await tx.execute(sql`select set_config('app.mark_change_reason', ${`Review request: ${reply}`}, true)`);
    const [mark] = await refusedAs(new AppError("forbidden", mayNotChange), () => tx
      .update(examMarkEntries)
      .set({
        awarded_marks: String(newMarks),
        // A person's change: a mark read from the scan becomes the teacher's.
        marked_by: "teacher",
        marked_by_user_id: callerId,
        updated_at: new Date(),
        mark_scheme_detail: sql`case when ${examMarkEntries.mark_scheme_detail} ->> 'type' = 'rubric' then null else ${examMarkEntries.mark_scheme_detail} end`,
      })
      .where(and(eq(examMarkEntries.submission_id, request.submission_id), eq(examMarkEntries.question_id, request.question_id)))
      .returning({ awarded: examMarkEntries.awarded_marks }));
    if (!mark) throw new AppError("forbidden", mayNotChange);
    after = mark.awarded;
  }
  const [final] = await tx.update(examReviewRequests).set({ marks_after: after }).where(eq(examReviewRequests.id, requestId)).returning();
  await queueStudentNotice(tx, { notice: "review-answered", request_id: requestId });
  return presentRequest(final!, current.label);
}
