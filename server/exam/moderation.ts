import { and, eq, isNull, sql } from "drizzle-orm";
import { z } from "zod";
import { type Tx, rowsOf } from "../db/client";
import {
  examBatchSignOffs,
  examBatches,
  examModerationSamples,
  examModerationScripts,
  examQuestions,
  examReconciliations,
  examSecondMarks,
  examSubmissions,
  instituteMemberships,
} from "../db/schema";
import { AppError, notFound } from "../errors";
import { decimal, integer } from "../../lib/rules/input-rules";
import { recordId } from "../http/record-id";
import { scriptLabel } from "./anonymity";
import { scanPageNumbers } from "./scan-page-numbers";
import { openBatchFor } from "./batch-gate";
import { findVisibleBatch } from "./batches";
import { type MarkPair, agreementOf } from "./moderation-stats";

/**
 * Moderation (issue 19, docs/decisions.md "Moderation"): the batch's owner or a department head of its
 * school (a moderator) picks a sample of marked scripts; another member of staff second-marks them
 * blind (the queue carries no first mark); the moderators read the agreement per question and per
 * first marker and the differences above the tolerance, and set the final mark of a difference (both
 * marks kept in exam_reconciliations); a department head signs the batch off, which refuses every
 * write of marks, second marks, samples and reconciliations (409) until a head reopens it.
 */

export const DEFAULT_TOLERANCE = 1;

const marks = () => decimal(8, 2, { min: 0 });

export const moderationBatchInput = z.object({ batch_id: recordId("Batch") });

export const setSampleBody = z
  .object({
    percent: integer({ min: 1, max: 100 }).optional().describe("A reproducible random pick of this share of the scripts that have marks"),
    submission_ids: z.array(z.uuid("submission_ids: must be submission ids")).min(1).max(2000).optional().describe("Or the scripts chosen one by one"),
    tolerance: marks().optional().describe(`Differences of at most this many marks count as agreement (default ${DEFAULT_TOLERANCE})`),
  })
  .refine((body) => (body.percent === undefined) !== (body.submission_ids === undefined), {
    message: "give either percent or submission_ids",
    path: ["percent"],
  });
export const setSampleInput = moderationBatchInput.extend({ body: setSampleBody });

export const secondMarkBody = z.object({ question_id: z.uuid("question_id must be a question id"), awarded_marks: marks() });
export const secondMarkInput = z.object({ submission_id: recordId("Submission"), body: secondMarkBody });

export const reconcileBody = z.object({ question_id: z.uuid("question_id must be a question id"), final_marks: marks() });
export const reconcileInput = z.object({ submission_id: recordId("Submission"), body: reconcileBody });

const signOffOutput = z.object({ signed_off_by: z.uuid().nullable(), signed_off_by_name: z.string().nullable(), signed_off_at: z.date() });

export const moderationStateOutput = z.object({
  batch_id: z.uuid(),
  sample: z
    .object({
      tolerance: z.number(),
      percent: z.number().int().nullable(),
      chosen_by: z.uuid().nullable(),
      chosen_at: z.date(),
      submission_ids: z.array(z.uuid()).describe("In script order"),
    })
    .nullable(),
  second_marks: z.number().int().describe("Second marks of the batch the caller reads: every one for a moderator, their own for another marker"),
  sign_off: signOffOutput.nullable().describe("Null while the batch is not signed off"),
  can_moderate: z.boolean().describe("The caller is the batch's owner or a department head of its school"),
  can_sign_off: z.boolean().describe("The caller is a department head of the batch's school"),
  /** What a sign-off would leave undone: the sign-off dialog names these counts and asks to confirm. */
  before_sign_off: z.object({
    unmarked_scripts: z.number().int().describe("Scripts with a scan that are not completely marked (every leaf question confirmed with a value)"),
    unreconciled_differences: z.number().int().describe("Differences above the tolerance without a final mark"),
    unsecond_marked_scripts: z.number().int().describe("Scripts of the sample without any second mark"),
  }),
});

export const secondMarkOutput = z.object({
  id: z.uuid(),
  submission_id: z.uuid(),
  question_id: z.uuid(),
  marker_id: z.uuid().nullable(),
  awarded_marks: z.number(),
  updated_at: z.date(),
});

export const secondMarkingQueueOutput = z.object({
  batch_id: z.uuid(),
  batch_title: z.string(),
  template_id: z.uuid().describe("The paper: its questions, mark schemes, rubrics and answer areas"),
  scripts: z.array(
    z.object({
      submission_id: z.uuid(),
      script_label: z.string(),
      scan_page_numbers: z
        .array(z.number().int())
        .nullable()
        .describe("The paper's page number of each page of the scan, in order; null for a scan uploaded on its own, read in order from page 1"),
      questions: z.array(
        z.object({
          question_id: z.uuid(),
          label: z.string(),
          max_marks: z.number().nullable(),
          second_marks: z.number().nullable().describe("The caller's own second mark, if given"),
        }),
      ),
    }),
  ),
});

const driftBlock = z.object({ from: z.number().int(), to: z.number().int(), n: z.number().int(), mean_difference: z.number() });
const agreementShape = {
  n: z.number().int(),
  mean_difference: z.number().nullable().describe("Mean of second − first"),
  mean_absolute_difference: z.number().nullable(),
  within_tolerance: z.number().nullable().describe("Share (0..1) of pairs differing by at most the tolerance"),
  kappa: z.number().nullable().describe("Quadratic-weighted Cohen's kappa over the question's scale"),
  kappa_note: z.string().nullable().describe("Why kappa is null"),
  drift_per_10: z.number().nullable().describe("Least-squares slope of second − first per 10 scripts, in the order of the first marks"),
  drift_blocks: z.array(driftBlock).describe("Mean second − first per block of 5 consecutive pairs"),
};
const questionAgreement = z.object({ question_id: z.uuid(), label: z.string(), max_marks: z.number().nullable(), ...agreementShape });

export const agreementOutput = z.object({
  batch_id: z.uuid(),
  tolerance: z.number(),
  questions: z.array(questionAgreement),
  markers: z.array(
    z.object({
      marker_id: z.uuid().nullable(),
      marker_name: z.string().nullable(),
      ...agreementShape,
      questions: z.array(questionAgreement),
    }),
  ),
});

const differenceRow = z.object({
  submission_id: z.uuid(),
  script_label: z.string(),
  question_id: z.uuid(),
  label: z.string(),
  max_marks: z.number().nullable(),
  first_marks: z.number(),
  first_marker_id: z.uuid().nullable(),
  first_marker_name: z.string().nullable(),
  second_marks: z.number(),
  second_marker_id: z.uuid().nullable(),
  second_marker_name: z.string().nullable(),
  difference: z.number().describe("second − first"),
  final_marks: z.number().nullable().describe("Set by a moderator; null while not reconciled"),
  reconciled_by: z.uuid().nullable(),
  reconciled_at: z.date().nullable(),
});
export const differencesOutput = z.object({ batch_id: z.uuid(), tolerance: z.number(), differences: z.array(differenceRow) });
export const reconciliationOutput = differenceRow;

type BatchRow = typeof examBatches.$inferSelect;

async function isHeadOf(tx: Tx, callerId: string, instituteId: string): Promise<boolean> {
  const [row] = await tx
    .select({ role: instituteMemberships.role })
    .from(instituteMemberships)
    .where(and(eq(instituteMemberships.user_id, callerId), eq(instituteMemberships.institute_id, instituteId), eq(instituteMemberships.role, "department_head")));
  return row !== undefined;
}

async function moderatorBatch(tx: Tx, callerId: string, batchId: string): Promise<BatchRow> {
  const batch = await findVisibleBatch(tx, batchId);
  if (batch.teacher_id !== callerId && !(await isHeadOf(tx, callerId, batch.institute_id))) {
    throw new AppError("forbidden", "Only the batch's owner or a department head moderates it");
  }
  return batch;
}

async function currentSignOff(tx: Tx, batchId: string) {
  const rows = rowsOf<{ signed_off_by: string | null; signed_off_by_name: string | null; signed_off_at: string | Date }>(
    await tx.execute(sql`select o.signed_off_by, u.full_name as signed_off_by_name, o.signed_off_at
      from ${examBatchSignOffs} o left join users u on u.id = o.signed_off_by
      where o.batch_id = ${batchId} and o.reopened_at is null`),
  );
  const row = rows[0];
  return row ? { ...row, signed_off_at: new Date(row.signed_off_at) } : null;
}

/** Writes of moderation go through the batch gate: refused (409) on an archived or a signed-off batch. */
async function assertWritable(tx: Tx, callerId: string, batch: BatchRow, action: "set_sample" | "second_mark" | "reconcile") {
  await openBatchFor(tx, callerId, batch, action);
}

/** GET /api/exam/batches/{batch_id}/moderation: the sample, how many second marks, and the sign-off. */
export async function getModeration(tx: Tx, callerId: string, input: z.input<typeof moderationBatchInput>): Promise<z.output<typeof moderationStateOutput>> {
  const { batch_id: batchId } = moderationBatchInput.parse(input);
  const batch = await findVisibleBatch(tx, batchId);
  const head = await isHeadOf(tx, callerId, batch.institute_id);
  const [sample] = await tx.select().from(examModerationSamples).where(eq(examModerationSamples.batch_id, batchId));
  const scripts = sample
    ? await tx
        .select({ id: examSubmissions.id })
        .from(examModerationScripts)
        .innerJoin(examSubmissions, eq(examSubmissions.id, examModerationScripts.submission_id))
        .where(eq(examModerationScripts.batch_id, batchId))
        .orderBy(examSubmissions.script_number)
    : [];
  const [counted] = rowsOf<{ count: number | string }>(await tx.execute(sql`select count(*) as count from ${examSecondMarks} where batch_id = ${batchId}`));
  return {
    batch_id: batchId,
    sample: sample
      ? {
          tolerance: Number(sample.tolerance),
          percent: sample.percent,
          chosen_by: sample.chosen_by,
          chosen_at: sample.chosen_at,
          submission_ids: scripts.map((script) => script.id),
        }
      : null,
    second_marks: Number(counted?.count ?? 0),
    sign_off: await currentSignOff(tx, batchId),
    can_moderate: head || batch.teacher_id === callerId,
    can_sign_off: head,
    before_sign_off: await beforeSignOff(tx, batchId),
  };
}

/** The counts a department head is warned of before signing off (none of them refuses the sign-off). */
async function beforeSignOff(tx: Tx, batchId: string): Promise<z.output<typeof moderationStateOutput>["before_sign_off"]> {
  const [counts] = rowsOf<{ unmarked: number | string; unsecond: number | string }>(
    await tx.execute(sql`select
        (select count(*) from ${examSubmissions} s where s.batch_id = ${batchId} and s.scan_url is not null and s.status <> 'complete') as unmarked,
        (select count(*) from ${examModerationScripts} ms where ms.batch_id = ${batchId}
          and not exists (select 1 from ${examSecondMarks} sm where sm.submission_id = ms.submission_id)) as unsecond`),
  );
  const tolerance = await sampleTolerance(tx, batchId);
  const unreconciled = (await pairsOfBatch(tx, batchId)).map(differenceOf).filter((row) => Math.abs(row.difference) > tolerance + 1e-9 && row.final_marks === null);
  return { unmarked_scripts: Number(counts?.unmarked ?? 0), unreconciled_differences: unreconciled.length, unsecond_marked_scripts: Number(counts?.unsecond ?? 0) };
}

/**
 * PUT /api/exam/batches/{batch_id}/moderation/sample: a moderator sets the sample, replacing the last.
 * A percentage picks ceil(percent × scripts with a mark / 100) of the scripts that have a mark with a
 * value, ordered by md5(batch id ":" submission id): the same batch gives the same pick, and no one
 * chooses which scripts. Chosen scripts must be the batch's and have a mark (400 naming submission_ids).
 * Second marks already given stay (and still count) when their script leaves the sample.
 */
export async function setModerationSample(tx: Tx, callerId: string, input: z.input<typeof setSampleInput>): Promise<z.output<typeof moderationStateOutput>> {
  const { batch_id: batchId, body } = setSampleInput.parse(input);
  const batch = await moderatorBatch(tx, callerId, batchId);
  await assertWritable(tx, callerId, batch, "set_sample");
  const marked = rowsOf<{ id: string }>(
    await tx.execute(sql`select s.id from ${examSubmissions} s
      where s.batch_id = ${batchId} and exists (select 1 from exam_mark_entries m where m.submission_id = s.id and m.awarded_marks is not null)
      order by md5(${batchId}::text || ':' || s.id::text)`),
  ).map((row) => row.id);
  let chosen: string[];
  if (body.percent !== undefined) {
    if (marked.length === 0) throw new AppError("conflict", "No script of the batch has a mark yet: there is nothing to moderate");
    chosen = marked.slice(0, Math.ceil((body.percent * marked.length) / 100));
  } else {
    chosen = [...new Set(body.submission_ids!.map((id) => id.toLowerCase()))];
    const markedSet = new Set(marked);
    if (chosen.some((id) => !markedSet.has(id))) {
      throw new AppError("invalid", "submission_ids: every script chosen must be one of this batch's scripts with a mark", "submission_ids");
    }
  }
  const [previous] = await tx.select().from(examModerationSamples).where(eq(examModerationSamples.batch_id, batchId));
  const tolerance = (body.tolerance ?? (previous ? Number(previous.tolerance) : DEFAULT_TOLERANCE)).toFixed(2);
  await tx
    .insert(examModerationSamples)
    .values({ batch_id: batchId, tolerance, percent: body.percent ?? null, chosen_by: callerId })
    .onConflictDoUpdate({
      target: examModerationSamples.batch_id,
      set: { tolerance, percent: body.percent ?? null, chosen_by: callerId, chosen_at: sql`now()` },
    });
  await tx.delete(examModerationScripts).where(eq(examModerationScripts.batch_id, batchId));
  await tx.insert(examModerationScripts).values(chosen.map((submissionId) => ({ batch_id: batchId, submission_id: submissionId })));
  return getModeration(tx, callerId, { batch_id: batchId });
}

/**
 * GET /api/exam/batches/{batch_id}/moderation/queue: the caller's second marking, blind: each sampled
 * script (by its number only) with the questions that have a first mark by someone else, and the
 * caller's own second mark. No first mark, comment, first marker or student name is in it.
 */
export async function getSecondMarkingQueue(tx: Tx, callerId: string, input: z.input<typeof moderationBatchInput>): Promise<z.output<typeof secondMarkingQueueOutput>> {
  const { batch_id: batchId } = moderationBatchInput.parse(input);
  const batch = await findVisibleBatch(tx, batchId);
  const rows = rowsOf<{ submission_id: string; script_number: number; question_id: string; label: string; max_marks: string | null; second_marks: string | null }>(
    await tx.execute(sql`select s.id as submission_id, s.script_number, q.id as question_id, q.label, q.max_marks::text as max_marks,
        sm.awarded_marks::text as second_marks
      from ${examModerationScripts} ms
      join ${examSubmissions} s on s.id = ms.submission_id
      join exam_mark_entries m on m.submission_id = s.id and m.awarded_marks is not null
        and m.marked_by_user_id is distinct from ${callerId}::uuid
      join ${examQuestions} q on q.id = m.question_id
      left join ${examSecondMarks} sm on sm.submission_id = s.id and sm.question_id = q.id
      where ms.batch_id = ${batchId} and (sm.id is null or sm.marker_id = ${callerId}::uuid)
        and not exists (select 1 from ${examReconciliations} r where r.submission_id = s.id and r.question_id = q.id)
      order by s.script_number, q."order", q.label`),
  );
  const scripts = new Map<string, z.output<typeof secondMarkingQueueOutput>["scripts"][number]>();
  for (const row of rows) {
    let script = scripts.get(row.submission_id);
    if (!script) {
      script = { submission_id: row.submission_id, script_label: scriptLabel(row.script_number), scan_page_numbers: await scanPageNumbers(tx, row.submission_id), questions: [] };
      scripts.set(row.submission_id, script);
    }
    script.questions.push({
      question_id: row.question_id,
      label: row.label,
      max_marks: row.max_marks === null ? null : Number(row.max_marks),
      second_marks: row.second_marks === null ? null : Number(row.second_marks),
    });
  }
  return { batch_id: batchId, batch_title: batch.title, template_id: batch.template_id, scripts: [...scripts.values()] };
}

/**
 * A visible submission, locked as mark writes lock it (marks.ts): the marks read after it are the
 * committed ones, and a sign-off (which locks every submission of its batch) waits or has committed.
 */
async function lockedSubmission(tx: Tx, submissionId: string) {
  const [submission] = await tx
    .select({ id: examSubmissions.id, batch_id: examSubmissions.batch_id })
    .from(examSubmissions)
    .where(eq(examSubmissions.id, submissionId))
    .for("update");
  if (!submission) throw notFound("Submission");
  return submission;
}

/**
 * POST /api/exam/submissions/{submission_id}/second-marks: the caller's blind second mark of one
 * question of a sampled script. Refused: 404 outside the school; 409 archived, signed off, not in the
 * sample, no first mark yet, already second-marked by a colleague, or already reconciled; 403 to the
 * first mark's own marker; 400 for a question not a leaf of the paper or a value outside 0..max.
 */
export async function saveSecondMark(tx: Tx, callerId: string, input: z.input<typeof secondMarkInput>): Promise<z.output<typeof secondMarkOutput>> {
  const { submission_id: submissionId, body } = secondMarkInput.parse(input);
  const submission = await lockedSubmission(tx, submissionId);
  const batch = await findVisibleBatch(tx, submission.batch_id);
  await assertWritable(tx, callerId, batch, "second_mark");
  const question = await leafQuestion(tx, batch, body.question_id, body.awarded_marks, "awarded_marks");
  const [inSample] = await tx
    .select({ id: examModerationScripts.submission_id })
    .from(examModerationScripts)
    .where(eq(examModerationScripts.submission_id, submissionId));
  if (!inSample) throw new AppError("conflict", "This script is not in the batch's moderation sample");
  const first = await firstMark(tx, submissionId, question);
  if (first.marked_by_user_id === callerId) throw new AppError("forbidden", "You gave the first mark: a second mark must come from another marker");
  const [existing] = await tx
    .select()
    .from(examSecondMarks)
    .where(and(eq(examSecondMarks.submission_id, submissionId), eq(examSecondMarks.question_id, question.id)));
  if (existing && existing.marker_id !== callerId) throw new AppError("conflict", `Question ${question.label} of this script is already second-marked by a colleague`);
  if (await reconciliationOf(tx, submissionId, question.id)) throw new AppError("conflict", `Question ${question.label} of this script is already reconciled`);
  const awarded = body.awarded_marks.toFixed(2);
  const [saved] = existing
    ? await tx.update(examSecondMarks).set({ awarded_marks: awarded, updated_at: sql`now()` }).where(eq(examSecondMarks.id, existing.id)).returning()
    : await tx
        .insert(examSecondMarks)
        .values({ batch_id: batch.id, submission_id: submissionId, question_id: question.id, marker_id: callerId, awarded_marks: awarded })
        .returning();
  return { ...saved!, awarded_marks: Number(saved!.awarded_marks) };
}

async function leafQuestion(tx: Tx, batch: BatchRow, questionId: string, value: number, field: string) {
  const [question] = await tx.select().from(examQuestions).where(eq(examQuestions.id, questionId.toLowerCase()));
  if (!question) throw notFound("Question");
  if (question.template_id !== batch.template_id) throw new AppError("invalid", "Question: not a question of this batch's paper", "question_id");
  if (question.is_container) throw new AppError("invalid", `Question: question ${question.label} takes no mark itself; mark its parts`, "question_id");
  if (question.max_marks !== null && value > Number(question.max_marks)) {
    throw new AppError("invalid", `Mark: question ${question.label} takes 0 to ${Number(question.max_marks)} marks, not ${value}`, field);
  }
  return question;
}

async function firstMark(tx: Tx, submissionId: string, question: { id: string; label: string }) {
  const [mark] = rowsOf<{ id: string; awarded_marks: string | null; marked_by_user_id: string | null; mark_scheme_detail: unknown; updated_at: string | Date }>(
    await tx.execute(sql`select id, awarded_marks::text as awarded_marks, marked_by_user_id, mark_scheme_detail, updated_at
      from exam_mark_entries where submission_id = ${submissionId} and question_id = ${question.id}`),
  );
  if (!mark || mark.awarded_marks === null) throw new AppError("conflict", `Question ${question.label} of this script has no first mark yet`);
  return { ...mark, awarded_marks: Number(mark.awarded_marks), updated_at: new Date(mark.updated_at) };
}

async function reconciliationOf(tx: Tx, submissionId: string, questionId: string) {
  const [row] = await tx
    .select()
    .from(examReconciliations)
    .where(and(eq(examReconciliations.submission_id, submissionId), eq(examReconciliations.question_id, questionId)));
  return row;
}

type PairRow = {
  submission_id: string;
  script_number: number;
  question_id: string;
  label: string;
  order: number;
  max_marks: string | null;
  first_marks: string;
  first_marker_id: string | null;
  first_marker_name: string | null;
  first_marked_at: string | Date;
  second_marks: string;
  second_marker_id: string | null;
  second_marker_name: string | null;
  final_marks: string | null;
  reconciled_by: string | null;
  reconciled_at: string | Date | null;
};

/**
 * Every (first, second) pair of the batch: the first mark as it was before a reconciliation (kept in
 * exam_reconciliations with its marker and time) or as it stands, beside the second mark.
 */
async function pairsOfBatch(tx: Tx, batchId: string): Promise<PairRow[]> {
  return rowsOf<PairRow>(
    await tx.execute(sql`select s.id as submission_id, s.script_number, q.id as question_id, q.label, q."order", q.max_marks::text as max_marks,
        coalesce(r.first_marks, m.awarded_marks)::text as first_marks,
        case when r.id is null then m.marked_by_user_id else r.first_marker_id end as first_marker_id,
        fu.full_name as first_marker_name,
        coalesce(r.first_marked_at, m.updated_at) as first_marked_at,
        sm.awarded_marks::text as second_marks, sm.marker_id as second_marker_id, su.full_name as second_marker_name,
        r.final_marks::text as final_marks, r.reconciled_by, r.reconciled_at
      from ${examSecondMarks} sm
      join ${examSubmissions} s on s.id = sm.submission_id
      join ${examQuestions} q on q.id = sm.question_id
      join exam_mark_entries m on m.submission_id = sm.submission_id and m.question_id = sm.question_id
      left join ${examReconciliations} r on r.submission_id = sm.submission_id and r.question_id = sm.question_id
      left join users fu on fu.id = case when r.id is null then m.marked_by_user_id else r.first_marker_id end
      left join users su on su.id = sm.marker_id
      where sm.batch_id = ${batchId} and coalesce(r.first_marks, m.awarded_marks) is not null
      order by s.script_number, q."order", q.label`),
  );
}

const toPair = (row: PairRow): MarkPair => ({ first: Number(row.first_marks), second: Number(row.second_marks), firstMarkedAt: new Date(row.first_marked_at).getTime() });

async function sampleTolerance(tx: Tx, batchId: string): Promise<number> {
  const [sample] = await tx.select({ tolerance: examModerationSamples.tolerance }).from(examModerationSamples).where(eq(examModerationSamples.batch_id, batchId));
  return sample ? Number(sample.tolerance) : DEFAULT_TOLERANCE;
}

function byQuestion(rows: PairRow[], tolerance: number) {
  const groups = new Map<string, PairRow[]>();
  for (const row of rows) groups.set(row.question_id, [...(groups.get(row.question_id) ?? []), row]);
  return [...groups.values()]
    .sort((a, b) => a[0]!.order - b[0]!.order || a[0]!.label.localeCompare(b[0]!.label))
    .map((group) => {
      const max = group[0]!.max_marks === null ? null : Number(group[0]!.max_marks);
      return { question_id: group[0]!.question_id, label: group[0]!.label, max_marks: max, ...agreementOf(group.map(toPair), max ?? 0, tolerance) };
    });
}

/**
 * GET /api/exam/batches/{batch_id}/moderation/agreement (moderators): agreement per question, and per
 * first marker (over all their pairs, and per question). A marker's κ over several questions is null:
 * κ compares marks on one scale.
 */
export async function getAgreement(tx: Tx, callerId: string, input: z.input<typeof moderationBatchInput>): Promise<z.output<typeof agreementOutput>> {
  const { batch_id: batchId } = moderationBatchInput.parse(input);
  await moderatorBatch(tx, callerId, batchId);
  const tolerance = await sampleTolerance(tx, batchId);
  const rows = await pairsOfBatch(tx, batchId);
  const markers = new Map<string, PairRow[]>();
  for (const row of rows) markers.set(row.first_marker_id ?? "", [...(markers.get(row.first_marker_id ?? "") ?? []), row]);
  return {
    batch_id: batchId,
    tolerance,
    questions: byQuestion(rows, tolerance),
    markers: [...markers.values()]
      .map((group) => {
        const questions = byQuestion(group, tolerance);
        const overall = agreementOf(group.map(toPair), 1, tolerance);
        const single = questions.length === 1 ? questions[0]! : null;
        return {
          marker_id: group[0]!.first_marker_id,
          marker_name: group[0]!.first_marker_name,
          ...overall,
          kappa: single ? single.kappa : null,
          kappa_note: single ? single.kappa_note : "Kappa is given per question: the questions' scales differ",
          questions,
        };
      })
      .sort((a, b) => (a.marker_name ?? "").localeCompare(b.marker_name ?? "")),
  };
}

const differenceOf = (row: PairRow): z.output<typeof differenceRow> => ({
  submission_id: row.submission_id,
  script_label: scriptLabel(row.script_number),
  question_id: row.question_id,
  label: row.label,
  max_marks: row.max_marks === null ? null : Number(row.max_marks),
  first_marks: Number(row.first_marks),
  first_marker_id: row.first_marker_id,
  first_marker_name: row.first_marker_name,
  second_marks: Number(row.second_marks),
  second_marker_id: row.second_marker_id,
  second_marker_name: row.second_marker_name,
  difference: Number((Number(row.second_marks) - Number(row.first_marks)).toFixed(2)),
  final_marks: row.final_marks === null ? null : Number(row.final_marks),
  reconciled_by: row.reconciled_by,
  reconciled_at: row.reconciled_at === null ? null : new Date(row.reconciled_at),
});

/** GET /api/exam/batches/{batch_id}/moderation/differences (moderators): pairs differing by more than the tolerance, reconciled or not. */
export async function listDifferences(tx: Tx, callerId: string, input: z.input<typeof moderationBatchInput>): Promise<z.output<typeof differencesOutput>> {
  const { batch_id: batchId } = moderationBatchInput.parse(input);
  await moderatorBatch(tx, callerId, batchId);
  const tolerance = await sampleTolerance(tx, batchId);
  const differences = (await pairsOfBatch(tx, batchId)).map(differenceOf).filter((row) => Math.abs(row.difference) > tolerance + 1e-9);
  return { batch_id: batchId, tolerance, differences };
}

/**
 * POST /api/exam/submissions/{submission_id}/reconcile (moderators): the final mark of a second-marked
 * pair. The first mark's value, marker and time before it and the second mark are kept in
 * exam_reconciliations (a later reconcile of the pair changes only the final mark); the mark itself
 * takes the final value, as the moderator's (a rubric detail that no longer sums to it is dropped, as a
 * typed mark does in marks.ts).
 */
export async function reconcileMark(tx: Tx, callerId: string, input: z.input<typeof reconcileInput>): Promise<z.output<typeof reconciliationOutput>> {
  const { submission_id: submissionId, body } = reconcileInput.parse(input);
  const submission = await lockedSubmission(tx, submissionId);
  const batch = await moderatorBatch(tx, callerId, submission.batch_id);
  await assertWritable(tx, callerId, batch, "reconcile");
  const question = await leafQuestion(tx, batch, body.question_id, body.final_marks, "final_marks");
  const [second] = await tx
    .select()
    .from(examSecondMarks)
    .where(and(eq(examSecondMarks.submission_id, submissionId), eq(examSecondMarks.question_id, question.id)));
  if (!second) throw new AppError("conflict", `Question ${question.label} of this script has no second mark to reconcile`);
  const final = body.final_marks.toFixed(2);
  const existing = await reconciliationOf(tx, submissionId, question.id);
  if (existing) {
    await tx.update(examReconciliations).set({ final_marks: final, reconciled_by: callerId, reconciled_at: sql`now()` }).where(eq(examReconciliations.id, existing.id));
  } else {
    const first = await firstMark(tx, submissionId, question);
    await tx.insert(examReconciliations).values({
      batch_id: batch.id,
      submission_id: submissionId,
      question_id: question.id,
      first_marks: first.awarded_marks.toFixed(2),
      first_marker_id: first.marked_by_user_id,
      first_marked_at: first.updated_at,
      second_marks: second.awarded_marks,
      final_marks: final,
      reconciled_by: callerId,
    });
  }
  await tx.execute(sql`update exam_mark_entries set
      mark_scheme_detail = case when mark_scheme_detail ->> 'type' = 'rubric' and awarded_marks is distinct from ${final}::numeric then null else mark_scheme_detail end,
      awarded_marks = ${final}::numeric, marked_by_user_id = ${callerId}::uuid, updated_at = now()
    where submission_id = ${submissionId} and question_id = ${question.id}`);
  const row = (await pairsOfBatch(tx, batch.id)).find((pair) => pair.submission_id === submissionId && pair.question_id === question.id);
  return differenceOf(row!);
}

/** POST /api/exam/batches/{batch_id}/sign-off: a department head of the school signs the batch off (idempotent). */
export async function signOffBatch(tx: Tx, callerId: string, input: z.input<typeof moderationBatchInput>): Promise<z.output<typeof moderationStateOutput>> {
  const { batch_id: batchId } = moderationBatchInput.parse(input);
  await openBatchFor(tx, callerId, batchId, "sign_off");
  // Every write of a mark, second mark or reconciliation locks its submission first: holding all of the
  // batch's, a write either committed before (and is signed off with the batch) or waits and then sees
  // the sign-off (its next statement reads a new snapshot) and is refused.
  await tx.execute(sql`select id from ${examSubmissions} where batch_id = ${batchId} order by id for update`);
  // Two heads at once: the partial unique index keeps one current sign-off.
  await tx.insert(examBatchSignOffs).values({ batch_id: batchId, signed_off_by: callerId }).onConflictDoNothing();
  return getModeration(tx, callerId, { batch_id: batchId });
}

/** POST /api/exam/batches/{batch_id}/reopen: a department head reopens a signed-off batch (idempotent); the sign-off stays as history. */
export async function reopenBatch(tx: Tx, callerId: string, input: z.input<typeof moderationBatchInput>): Promise<z.output<typeof moderationStateOutput>> {
  const { batch_id: batchId } = moderationBatchInput.parse(input);
  await openBatchFor(tx, callerId, batchId, "reopen");
  await tx
    .update(examBatchSignOffs)
    .set({ reopened_by: callerId, reopened_at: sql`now()` })
    .where(and(eq(examBatchSignOffs.batch_id, batchId), isNull(examBatchSignOffs.reopened_at)));
  return getModeration(tx, callerId, { batch_id: batchId });
}
