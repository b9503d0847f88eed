import { type SQL, getTableColumns, sql } from "drizzle-orm";
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

export type MarkUpsert = z.output<typeof upsertMarkInput>;
export type Mark = z.output<typeof markOutput>;
/** What became of one write of a batch: its saved mark, or the error its caller gets. */
export type MarkOutcome = { mark: Mark } | { error: AppError };

/**
 * PUT /api/exam/marks/{mark_id}: upserts the mark of one (submission, question). The rules are
 * upsertMarks', for a batch of one.
 */
export async function upsertMark(tx: Tx, callerId: string, input: z.input<typeof upsertMarkInput>): Promise<Mark> {
  const [outcome] = await upsertMarks(tx, callerId, [upsertMarkInput.parse(input)]);
  if (!outcome) throw new AppError("internal", "The mark could not be saved");
  if ("error" in outcome) throw outcome.error;
  return outcome.mark;
}

/**
 * Upserts several marks in the caller's transaction, each by the rules of PUT /api/exam/marks/{mark_id};
 * the outcome of each write comes back in its place:
 * - The submission must be visible with its batch (404); batch_id is taken from it, never the client.
 * - An archived batch refuses marks (409).
 * - The question must be a leaf of the batch's template (400 naming question_id), awarded_marks within
 *   0..max_marks (400 naming awarded_marks).
 * - A new entry takes mark_id as its id; an existing entry of the pair keeps its id.
 * - Status: absent or unmatched moves to marking; when every leaf question has a confirmed mark with a
 *   value the submission is complete, and it moves back to marking when that stops being true.
 * A write refused by a rule is not saved and the others go on. A database error (a mark_id that already
 * names the entry of another pair: 409) is thrown and fails the transaction, all writes with it.
 * Writes to one pair apply in their order. Concurrency: the submissions are locked first, in id order,
 * so writes to one submission run one after the other and the status always counts every committed
 * mark of it.
 */
export async function upsertMarks(tx: Tx, callerId: string, writes: MarkUpsert[]): Promise<MarkOutcome[]> {
  if (writes.length === 0) return [];
  const contexts = await lockWriteContexts(tx, writes);
  const outcomes: MarkOutcome[] = new Array(writes.length);
  const accepted: number[] = [];
  writes.forEach((write, index) => {
    const refusal = refusalOf(write, contexts[index]);
    if (refusal) outcomes[index] = { error: refusal };
    else accepted.push(index);
  });

  // Every submission's status as it stands, then as each round of writes leaves it.
  const statusBefore = new Map<string, SubmissionStatus>();
  for (const index of accepted) statusBefore.set(writes[index]!.body.submission_id, contexts[index]!.status);
  const status = new Map(statusBefore);
  for (const round of inRounds(writes, accepted)) {
    const saved = new Map<string, SavedMark>();
    const roundPairs = round.map((index) => writes[index]!.body);
    for (const group of bySuppliedFields(writes, round)) {
      for (const row of await insertMarks(tx, callerId, group.map((index) => ({ write: writes[index]!, context: contexts[index]! })), roundPairs)) {
        saved.set(pairKey(row.submission_id, row.question_id), row);
      }
    }
    // Confirmed marks of each submission: those outside this round (the same for each of its rows)
    // plus this round's own.
    const progress = new Map<string, { leaves: number; confirmed: number }>();
    for (const row of saved.values()) {
      const current = progress.get(row.submission_id) ?? { leaves: row.leaves, confirmed: row.confirmedOutsideRound };
      if (isConfirmedValue(row)) current.confirmed++;
      progress.set(row.submission_id, current);
    }
    for (const [submissionId, counts] of progress) {
      status.set(submissionId, nextSubmissionStatus(status.get(submissionId)!, counts.leaves, counts.confirmed));
    }
    for (const index of round) {
      const { leaves: _leaves, confirmedOutsideRound: _confirmed, ...mark } = saved.get(pairKey(writes[index]!.body.submission_id, writes[index]!.body.question_id))!;
      outcomes[index] = { mark: markFromRow(mark) };
    }
  }

  const moved = [...status].filter(([submissionId, next]) => statusBefore.get(submissionId) !== next);
  if (moved.length > 0) {
    await tx.execute(sql`update ${examSubmissions} set status = moved.status::submission_status, updated_at = now()
      from unnest(${uuidArray(moved.map(([id]) => id))}::uuid[], ${statusArray(moved.map(([, next]) => next))}::text[]) as moved(id, status)
      where ${examSubmissions.id} = moved.id`);
  }
  return outcomes;
}

interface WriteContext {
  submissionId: string | null;
  batchId: string | null;
  status: SubmissionStatus;
  batchStatus: "open" | "archived" | null;
  templateId: string | null;
  questionId: string | null;
  questionTemplateId: string | null;
  label: string | null;
  isContainer: boolean | null;
  maxMarks: string | null;
}

/**
 * One statement: locks the submissions written to (in id order, so two batches never wait for each
 * other crosswise) and reads, for each write, its submission, batch and question; only the columns the
 * rules read. Under row-level security a submission the caller may not mark (another school's, or a
 * student's own) is not returned: 404.
 */
async function lockWriteContexts(tx: Tx, writes: MarkUpsert[]): Promise<(WriteContext | undefined)[]> {
  const submissionIds = uuidArray(writes.map((write) => write.body.submission_id));
  const questionIds = uuidArray(writes.map((write) => write.body.question_id));
  const rows = rowsOf<Record<string, unknown>>(
    await tx.execute(sql`with locked as materialized (
        select s.id, s.batch_id, s.status from ${examSubmissions} s where s.id = any(${submissionIds}::uuid[]) order by s.id for update
      )
      select w.ordinality::int as position, l.id as submission_id, l.batch_id, l.status, b.status as batch_status, b.template_id,
        q.id as question_id, q.template_id as question_template_id, q.label, q.is_container, q.max_marks::text as max_marks
      from unnest(${submissionIds}::uuid[], ${questionIds}::uuid[]) with ordinality as w(submission_id, question_id)
      left join locked l on l.id = w.submission_id
      left join ${examBatches} b on b.id = l.batch_id
      left join ${examQuestions} q on q.id = w.question_id`),
  );
  const contexts: (WriteContext | undefined)[] = new Array(writes.length);
  for (const row of rows) {
    contexts[Number(row.position) - 1] = {
      submissionId: row.submission_id as string | null,
      batchId: row.batch_id as string | null,
      status: row.status as SubmissionStatus,
      batchStatus: row.batch_status as WriteContext["batchStatus"],
      templateId: row.template_id as string | null,
      questionId: row.question_id as string | null,
      questionTemplateId: row.question_template_id as string | null,
      label: row.label as string | null,
      isContainer: row.is_container as boolean | null,
      maxMarks: row.max_marks as string | null,
    };
  }
  return contexts;
}

/** The rule a write breaks, if any. */
function refusalOf({ body }: MarkUpsert, context: WriteContext | undefined): AppError | undefined {
  if (!context?.submissionId || !context.batchStatus) return notFound("Submission");
  if (context.batchStatus === "archived") return new AppError("conflict", "The batch is archived: it accepts no more marks");
  if (!context.questionId) return notFound("Question");
  if (context.questionTemplateId !== context.templateId) {
    return new AppError("invalid", "question_id: the question belongs to another template than this batch's", "question_id");
  }
  if (context.isContainer) {
    return new AppError("invalid", `question_id: question ${context.label} is a container; marks go on its parts`, "question_id");
  }
  if (body.awarded_marks !== null) {
    const max = context.maxMarks === null ? null : Number(context.maxMarks);
    if (body.awarded_marks < 0 || (max !== null && body.awarded_marks > max)) {
      return new AppError("invalid", `awarded_marks: must be between 0 and ${max ?? "any"} for question ${context.label}`, "awarded_marks");
    }
  }
  return undefined;
}

const pairKey = (submissionId: string, questionId: string) => `${submissionId}/${questionId}`;

/**
 * Splits writes into rounds one statement each can carry: a statement may touch a pair, or use a
 * mark id, only once. A later write of a pair (or id) goes in a later round, so writes apply in order.
 */
function inRounds(writes: MarkUpsert[], indexes: number[]): number[][] {
  const rounds: number[][] = [];
  const lastRound = new Map<string, number>();
  for (const index of indexes) {
    const { mark_id: markId, body } = writes[index]!;
    const keys = [pairKey(body.submission_id, body.question_id), markId];
    const round = Math.max(...keys.map((key) => lastRound.get(key) ?? -1)) + 1;
    (rounds[round] ??= []).push(index);
    for (const key of keys) lastRound.set(key, round);
  }
  return rounds;
}

const OPTIONAL_FIELDS = ["mark_scheme_detail", "annotation_shape_ids", "comment", "confirmed"] as const;

/** Writes that supply the same optional fields, which one statement's ON CONFLICT can update together. */
function bySuppliedFields(writes: MarkUpsert[], indexes: number[]): number[][] {
  const groups = new Map<string, number[]>();
  for (const index of indexes) {
    const key = OPTIONAL_FIELDS.map((field) => (writes[index]!.body[field] === undefined ? "0" : "1")).join("");
    groups.set(key, [...(groups.get(key) ?? []), index]);
  }
  return [...groups.values()];
}

type SavedMark = MarkRow & { leaves: number; confirmedOutsideRound: number };

/**
 * One INSERT … ON CONFLICT for writes of distinct pairs supplying the same optional fields. Each row
 * comes back with its template's leaf count and the confirmed marks of its submission but those of the
 * round's pairs (`roundPairs`, this statement's and its siblings'); subqueries in RETURNING read the
 * snapshot taken before the statement: every committed mark of the submission and the earlier rounds'.
 */
async function insertMarks(
  tx: Tx,
  callerId: string,
  group: { write: MarkUpsert; context: WriteContext }[],
  roundPairs: { submission_id: string; question_id: string }[],
): Promise<SavedMark[]> {
  const supplied = OPTIONAL_FIELDS.filter((field) => group[0]!.write.body[field] !== undefined);
  const rows = group.map(({ write: { mark_id: id, body }, context }) => ({
    id,
    submission_id: body.submission_id,
    question_id: body.question_id,
    batch_id: context.batchId!,
    awarded_marks: body.awarded_marks === null ? null : body.awarded_marks.toFixed(2),
    marked_by: "teacher",
    marked_by_user_id: callerId,
    ...Object.fromEntries(supplied.map((field) => [field, body[field]])),
  }));
  // Over the marks `m` the count reads: the pairs this round writes.
  const writtenThisRound = sql`exists (select from unnest(${uuidArray(roundPairs.map((pair) => pair.submission_id))}::uuid[], ${uuidArray(roundPairs.map((pair) => pair.question_id))}::uuid[]) as w(submission_id, question_id)
    where w.submission_id = m.submission_id and w.question_id = m.question_id)`;
  // The written row's columns, spelled out: drizzle leaves RETURNING's column names unqualified, and
  // inside a subquery over marks an unqualified name would mean the subquery's own row.
  const writtenSubmission = sql.raw("exam_mark_entries.submission_id");
  const writtenTemplate = sql`(select t.template_id from ${examQuestions} t where t.id = ${sql.raw("exam_mark_entries.question_id")})`;
  try {
    return await tx
      .insert(examMarkEntries)
      .values(rows)
      .onConflictDoUpdate({
        target: [examMarkEntries.submission_id, examMarkEntries.question_id],
        set: {
          awarded_marks: sql`excluded.awarded_marks`,
          marked_by: "teacher",
          marked_by_user_id: callerId,
          updated_at: sql`now()`,
          ...Object.fromEntries(supplied.map((field) => [field, sql.raw(`excluded.${field}`)])),
        },
      })
      .returning({
        ...getTableColumns(examMarkEntries),
        leaves: leafQuestionCount(writtenTemplate),
        confirmedOutsideRound: confirmedMarkCount(writtenSubmission, writtenTemplate, writtenThisRound),
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
}

/** A PostgreSQL array literal of ids (checked as UUIDs by the input schema): one parameter, any length. */
const uuidArray = (ids: string[]) => `{${ids.join(",")}}`;
/** Submission statuses are enum labels (plain words): no quoting needed. */
const statusArray = (statuses: SubmissionStatus[]) => `{${statuses.join(",")}}`;

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

/** Leaf questions of a template (its id, or an SQL expression giving it). */
const leafQuestionCount = (templateId: string | SQL) =>
  sql<number>`(select count(*)::int from ${examQuestions} q where q.template_id = ${templateId} and not q.is_container)`;

/** Confirmed marks with a value on leaf questions of the template, of a submission; but those `unless` names (a condition on `m`). */
const confirmedMarkCount = (submissionId: string | SQL, templateId: string | SQL, unless?: SQL) =>
  sql<number>`(select count(*)::int from ${examMarkEntries} m join ${examQuestions} q on q.id = m.question_id
    where m.submission_id = ${submissionId} and q.template_id = ${templateId} and not q.is_container
      and m.confirmed and m.awarded_marks is not null${unless ? sql` and not ${unless}` : sql``})`;

/** The status of a submission by the rule above, from its marks as they stand in this transaction. */
export async function statusAfterMark(tx: Tx, submissionId: string, templateId: string, current: SubmissionStatus): Promise<SubmissionStatus> {
  const [counts] = rowsOf<{ leaves: number; confirmed: number }>(
    await tx.execute(sql`select ${leafQuestionCount(templateId)} as leaves, ${confirmedMarkCount(submissionId, templateId)} as confirmed`),
  );
  return nextSubmissionStatus(current, Number(counts?.leaves ?? 0), Number(counts?.confirmed ?? 0));
}
