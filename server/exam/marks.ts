import { type SQL, sql } from "drizzle-orm";
import { z } from "zod";
import { decimal, jsonValue, text } from "../../lib/rules/input-rules";
import { recordId } from "../http/record-id";
import { type Db, type Rows, type Statement, type Tx, rowsOf, statementTemplate } from "../db/client";
import { asUsersInOneTrip, isRunningAs } from "../db/rls";
import { examBatches, examMarkEntries, examQuestions, examReconciliations, examSubmissions } from "../db/schema";
import { AppError, notFound } from "../errors";
import { FOREIGN_KEY_VIOLATION, UNIQUE_VIOLATION, postgresErrorCode } from "../db/postgres-errors";
import { RUBRIC_LOCK_CLASS, type RubricMarkDetail, isRubricDetail, rubricMarkDetail } from "./rubrics";
import { batchRefusal } from "./batch-gate";
import { CLAIM_SECONDS } from "./shared-marking";
import { markProvenance } from "./mark-provenance";

/** MarkUpsertRequest. The last four fields are written only when supplied. */
const markUpsertBody = z.object({
  submission_id: z.uuid("submission_id must be a submission id"),
  question_id: z.uuid("question_id must be a question id"),
  // exam_mark_entries.awarded_marks is numeric(8, 2); the range against max_marks is a rule of upsertMarks.
  awarded_marks: decimal(8, 2).nullable(),
  // Free JSON, but a detail of `"type": "rubric"` is a list of the question's rubric items (rubrics.ts):
  // awarded_marks is then their sum within 0..max_marks, whatever the write says.
  mark_scheme_detail: jsonValue().check(rubricDetailRule).transform(lowerCaseRubricItems).optional(),
  annotation_shape_ids: z.array(text(200)).max(1000).optional(),
  comment: text(10000).nullable().optional(),
  confirmed: z.boolean().optional(),
});
export const upsertMarkInput = z.object({ mark_id: recordId("Mark"), body: markUpsertBody });

function rubricDetailRule(context: z.core.ParsePayload<z.core.util.JSONType>) {
  if (!isRubricDetail(context.value)) return;
  const parsed = rubricMarkDetail.safeParse(context.value);
  if (parsed.success) return;
  for (const issue of parsed.error.issues) context.issues.push({ code: "custom", message: issue.message, path: issue.path, input: context.value });
}

/** Item ids as the database writes them, so that a list matches its items whatever the case sent. */
function lowerCaseRubricItems(detail: z.core.util.JSONType): z.core.util.JSONType {
  if (!isRubricDetail(detail)) return detail;
  const rubric = detail as RubricMarkDetail;
  return { type: rubric.type, items: rubric.items.map((id) => id.toLowerCase()) };
}

/** The rubric items a write applies (none when its detail is not a rubric's). */
const rubricItemsOf = ({ body }: MarkUpsert): string[] => (isRubricDetail(body.mark_scheme_detail) ? (body.mark_scheme_detail as RubricMarkDetail).items : []);

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
  /** Who gave the mark: a teacher (always, for a mark written through this API), or read from the scan (`ticks`, `blank`). */
  marked_by: markProvenance,
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
    marked_by: markProvenance.parse(row.marked_by),
  };
}

export type MarkUpsert = z.output<typeof upsertMarkInput>;
export type Mark = z.output<typeof markOutput>;
/** What became of one write of a batch: its saved mark, or the error its caller gets. */
export type MarkOutcome = { mark: Mark } | { error: AppError };

/**
 * PUT /api/exam/marks/{mark_id}: upserts the mark of one (submission, question) as the caller. The
 * rules are upsertMarks', for a batch of one.
 */
export async function upsertMark(db: Db, callerId: string, input: z.input<typeof upsertMarkInput>): Promise<Mark> {
  const [outcome] = await upsertMarks(db, callerId, [upsertMarkInput.parse(input)]);
  if (!outcome) throw new AppError("internal", "The mark could not be saved");
  if ("error" in outcome) throw outcome.error;
  return outcome.mark;
}

/**
 * Upserts several marks as the caller, in one transaction, each by the rules of
 * PUT /api/exam/marks/{mark_id}; the outcome of each write comes back in its place:
 * - The submission must be visible with its batch (404); batch_id is taken from it, never the client.
 * - Only a writer of the batch marks it: its owner, a department head of its school, a marker within
 *   their allocation (403, app.mark_write_refusal); an archived batch refuses marks (409), and so does a
 *   signed-off one (moderation/sign-off.ts) until it is reopened. The sentences are the batch gate's (batch-gate.ts).
 * - The question must be a leaf of the batch's template (400 naming question_id), awarded_marks within
 *   0..max_marks (400 naming awarded_marks).
 * - A new entry takes mark_id as its id; an existing entry of the pair keeps its id.
 * - Status: absent or unmatched moves to marking; when every leaf question has a confirmed mark with a
 *   value the submission is complete, and it moves back to marking when that stops being true.
 * A write refused by a rule is not saved and the others go on. A database error (a mark_id that already
 * names the entry of another pair: 409) fails the transaction, all writes with it.
 *
 * The transaction is sent in one round trip (asUsersInOneTrip), so no statement may wait for another's
 * answer: the rules are checked in SQL, and only their messages are written here. First one statement
 * locks the submissions in id order (lockSubmissions), so writes to one submission run one after the
 * other; each later statement starts after those locks, so its counts see every committed mark. Then
 * one statement per round of writes (a pair or mark id at most once in each, so writes to one pair
 * apply in order) checks, writes and moves the status of the submissions it wrote to.
 */
export async function upsertMarks(db: Db, callerId: string, writes: MarkUpsert[]): Promise<MarkOutcome[]> {
  if (writes.length === 0) return [];
  const plan = markWrites(callerId, writes);
  try {
    const [results] = await asUsersInOneTrip(db, [{ userId: callerId, statements: plan.statements }], lockWritten(writes));
    return plan.outcomes(results!);
  } catch (error) {
    throw markWriteError(error);
  }
}

/**
 * upsertMarks' writes, all or nothing: when any write is refused by a rule, nothing is saved and the
 * first refusal's error is thrown (a group of scripts given one answer at once, server/exam/answers/).
 */
export async function upsertMarksAllOrNothing(db: Db, callerId: string, writes: MarkUpsert[]): Promise<Mark[]> {
  if (writes.length === 0) return [];
  const plan = markWrites(callerId, writes, { allOrNothing: true });
  try {
    const [results] = await asUsersInOneTrip(db, [{ userId: callerId, statements: plan.statements }], lockWritten(writes));
    return plan.outcomes(results!).map((outcome) => {
      if ("error" in outcome) throw outcome.error;
      return outcome.mark;
    });
  } catch (error) {
    const refused = refusedWrite(error);
    if (refused) throw refusalError(refused.refusal, writes[refused.position - 1]!, refused);
    throw markWriteError(error);
  }
}

/** The write app.mark_write_all_or_nothing refused, from its error's message; null for any other error. */
function refusedWrite(error: unknown): { refusal: Refusal; position: number; label: string; max_marks: string | null } | null {
  const message = error instanceof Error ? error.message : "";
  const match = /^mark write refused (\{.*\})$/s.exec(message);
  if (!match) return null;
  return JSON.parse(match[1]!) as { refusal: Refusal; position: number; label: string; max_marks: string | null };
}

/**
 * upsertMarks' statements for `writes` as the caller, and how to read their answers: for a transaction
 * (asUsersInOneTrip) that may carry other callers' statements as well, and that has locked the
 * submissions written to first (lockWritten).
 */
export function markWrites(
  callerId: string,
  writes: MarkUpsert[],
  { allOrNothing = false } = {},
): { statements: Statement[]; outcomes(results: Rows[]): MarkOutcome[] } {
  const statementWrites = inRounds(writes).flatMap((round) => bySuppliedFields(writes, round));
  return {
    statements: statementWrites.map((indexes) => writeMarks(callerId, indexes, writes, allOrNothing)),
    outcomes(results) {
      const outcomes = new Array<MarkOutcome>(writes.length);
      statementWrites.forEach((indexes, statement) => {
        for (const row of results[statement]!) {
          const index = indexes[Number(row.position) - 1]!;
          const refusal = row.refusal as Refusal | null;
          outcomes[index] = refusal ? { error: refusalError(refusal, writes[index]!, row) } : { mark: markFromWrittenRow(row) };
        }
      });
      return outcomes;
    },
  };
}

/**
 * Locks the submissions written to, in id order, with the service's rights (asUsersInOneTrip's
 * `asService`): one statement for a whole transaction, whoever its callers, so two transactions never
 * wait for each other crosswise. The lock only orders writers: what a caller may write is decided by
 * the caller's own statements under row-level security (a submission out of the caller's reach is a
 * 404 there, and nothing of it is read or written). FOR NO KEY UPDATE, not FOR UPDATE: a rubric edit's
 * re-score, holding the question's rubric lock, writes mark history rows whose foreign key takes KEY SHARE
 * on these submissions; FOR UPDATE would make a write waiting for that rubric lock block it (a deadlock).
 */
const lockSubmissionsStatement = statementTemplate(
  sql`select id from ${examSubmissions} where id = any(${sql.placeholder("submissionIds")}::uuid[]) order by id for no key update`,
);

const lockSubmissions = (submissionIds: Iterable<string>) => lockSubmissionsStatement({ submissionIds: pgArray([...new Set(submissionIds)]) });

/**
 * Rubric writes hold their questions' rubric lock shared: a rubric edit (app.rescore_rubric_marks) takes
 * it exclusively before it re-scores, so a write either waits for an uncommitted edit and then sums the
 * new points, or the edit waits for the write and its re-score then sees the mark. Either way no mark is
 * left on an old score. An advisory lock per question, not a share lock on the item rows: share locks
 * taken by many transactions at once on the same rows make PostgreSQL write multixacts (measured: half
 * the saves per second of typed marks, bench:exam).
 */
const lockRubricQuestionsStatement = statementTemplate(
  sql`select pg_advisory_xact_lock_shared(${RUBRIC_LOCK_CLASS}, hashtext(question::text))
    from (select distinct unnest(${sql.placeholder("questionIds")}::uuid[]) as question) questions order by hashtext(question::text)`,
);

/** The locks a transaction of these writes takes first (with the service's rights), in this order. */
export function lockWritten(writes: MarkUpsert[]): Statement[] {
  const rubricQuestions = new Set(writes.filter((write) => rubricItemsOf(write).length > 0).map((write) => write.body.question_id));
  return [
    lockSubmissions(writes.map((write) => write.body.submission_id)),
    ...(rubricQuestions.size > 0 ? [lockRubricQuestionsStatement({ questionIds: pgArray([...rubricQuestions]) })] : []),
  ];
}

/** Why a write is refused, as writeMarks' statement names it. */
type Refusal = "submission" | "not_writer" | "archived" | "signed_off" | "question" | "template" | "container" | "reconciled" | "allocation" | "claimed" | "rubric" | "awarded_marks";

/**
 * The rules a write must keep, in their order, over the columns `writeMarks` reads: the submission `s`
 * (absent when not visible to the caller), its batch `b` and the question `q`; `shared.refusal` is a shared
 * batch's (app.mark_write_claim: app.mark_write_refusal's answer, which the policies of exam_mark_entries
 * enforce as well, and the caller's claim on the pair renewed when there is none — also for a write a
 * later rule refuses: the marker is at work on the pair all the same).
 */
const refusalCase = (withRubric: boolean, callerId: ReturnType<typeof sql.placeholder>) => sql`case
    when s.id is null or b.id is null then 'submission'
    when writer.refusal = 'not_writer' then 'not_writer'
    when b.status = 'archived' then 'archived'
    when b.signed_off then 'signed_off'
    when q.id is null then 'question'
    when q.template_id <> b.template_id then 'template'
    when q.is_container then 'container'
    when reconciled.reconciled_by is distinct from ${callerId}::uuid and reconciled.id is not null then 'reconciled'
    when shared.refusal is not null then shared.refusal${withRubric ? sql`
    when rubric.unknown_items > 0 then 'rubric'` : sql``}
    when ${withRubric ? sql`coalesce(rubric.awarded, w.awarded_marks)` : sql`w.awarded_marks`} < 0
      or ${withRubric ? sql`coalesce(rubric.awarded, w.awarded_marks)` : sql`w.awarded_marks`} > q.max_marks then 'awarded_marks'
  end`;

function refusalError(refusal: Refusal, { body }: MarkUpsert, row: Record<string, unknown>): AppError {
  switch (refusal) {
    case "submission":
      return notFound("Submission");
    case "not_writer":
    case "archived":
    case "signed_off":
      return batchRefusal("mark", refusal);
    case "question":
      return notFound("Question");
    case "template":
      return new AppError("invalid", "Question: not a question of this batch's paper", "question_id");
    case "container":
      return new AppError("invalid", `Question: question ${String(row.label)} takes no mark itself; mark its parts`, "question_id");
    case "reconciled":
      return new AppError(
        "conflict",
        `Question ${String(row.label)} of this script has a final mark set in moderation, which a marker's save does not change: ask the moderator who set it`,
      );
    case "allocation":
      return new AppError("forbidden", `Question ${String(row.label)} of this script is not in your allocation: ask the batch's owner to allocate it to you`);
    case "claimed":
      return new AppError("conflict", `Question ${String(row.label)} of this script is being marked by another marker; it is free again when their claim ends`);
    case "rubric":
      return new AppError(
        "invalid",
        `Rubric: an item applied is not one of question ${String(row.label)}'s (it may have been deleted); reload the rubric`,
        "mark_scheme_detail",
      );
    case "awarded_marks":
      return new AppError(
        "invalid",
        `Mark: question ${String(row.label)} takes ${typeof row.max_marks === "string" || typeof row.max_marks === "number" ? `0 to ${Number(row.max_marks)}` : "no negative"} marks, not ${body.awarded_marks}`,
        "awarded_marks",
      );
  }
}

const pairKey = (submissionId: string, questionId: string) => `${submissionId}/${questionId}`;

/**
 * Splits writes into rounds one statement each can carry: a statement may touch a pair, or use a
 * mark id, only once. A later write of a pair (or id) goes in a later round, so writes apply in order.
 */
function inRounds(writes: MarkUpsert[]): number[][] {
  const rounds: number[][] = [];
  const lastRound = new Map<string, number>();
  writes.forEach(({ mark_id: markId, body }, index) => {
    const keys = [pairKey(body.submission_id, body.question_id), markId];
    const round = Math.max(...keys.map((key) => lastRound.get(key) ?? -1)) + 1;
    (rounds[round] ??= []).push(index);
    for (const key of keys) lastRound.set(key, round);
  });
  return rounds;
}

const OPTIONAL_FIELDS = ["mark_scheme_detail", "annotation_shape_ids", "comment", "confirmed"] as const;
type OptionalField = (typeof OPTIONAL_FIELDS)[number];

/** Writes that supply the same optional fields, which one statement's ON CONFLICT can update together. */
function bySuppliedFields(writes: MarkUpsert[], indexes: number[]): number[][] {
  const groups = new Map<string, number[]>();
  for (const index of indexes) {
    const key = OPTIONAL_FIELDS.map((field) => (writes[index]!.body[field] === undefined ? "0" : "1")).join("");
    groups.set(key, [...(groups.get(key) ?? []), index]);
  }
  return [...groups.values()];
}

/** Each optional field as one array parameter (a PostgreSQL array literal, one element per write) and its type. */
const optionalColumns: Record<OptionalField, { values(writes: MarkUpsert[]): string; type: SQL }> = {
  mark_scheme_detail: {
    values: (writes) => pgArray(writes.map(({ body }) => (body.mark_scheme_detail === null ? null : JSON.stringify(body.mark_scheme_detail)))),
    type: sql`jsonb[]`,
  },
  annotation_shape_ids: { values: (writes) => pgArray(writes.map(({ body }) => JSON.stringify(body.annotation_shape_ids))), type: sql`jsonb[]` },
  comment: { values: (writes) => pgArray(writes.map(({ body }) => body.comment ?? null)), type: sql`text[]` },
  confirmed: { values: (writes) => pgArray(writes.map(({ body }) => String(body.confirmed))), type: sql`boolean[]` },
};

/**
 * One statement for writes of distinct pairs supplying the same optional fields: reads each write's
 * submission, batch and question, keeps the rules (refusalCase), inserts or updates the accepted
 * writes, and moves the status of each submission written to by the status rule. Answers one row per
 * write, by position: its refusal, or the saved mark.
 *
 * The confirmed marks of a submission after the statement are those of its snapshot (every committed
 * mark, the locks being taken by the statement before) but the pairs it writes, plus the pairs it
 * writes that are confirmed with a value. They are counted only when the statement writes such a mark
 * to the submission: otherwise the submission cannot become complete and the count changes nothing.
 */
function writeMarks(callerId: string, indexes: number[], allWrites: MarkUpsert[], allOrNothing: boolean): Statement {
  const writes = indexes.map((index) => allWrites[index]!);
  const supplied = OPTIONAL_FIELDS.filter((field) => writes[0]!.body[field] !== undefined);
  const key = `${supplied.join(",")}${allOrNothing ? "/all" : ""}`;
  let template = writeMarksTemplates.get(key);
  if (!template) writeMarksTemplates.set(key, (template = statementTemplate(writeMarksSql(supplied, allOrNothing))));
  return template({
    callerId,
    // Each write's position among all of the call's writes, for the all-or-nothing refusal's message.
    positions: pgArray(indexes.map((index) => String(index + 1))),
    markIds: pgArray(writes.map((write) => write.mark_id)),
    submissionIds: pgArray(writes.map((write) => write.body.submission_id)),
    questionIds: pgArray(writes.map((write) => write.body.question_id)),
    awardedMarks: pgArray(writes.map(({ body }) => (body.awarded_marks === null ? null : body.awarded_marks.toFixed(2)))),
    ...Object.fromEntries(supplied.map((field) => [field, optionalColumns[field].values(writes)])),
  });
}

/** writeMarks' statement text for each combination of supplied optional fields, rendered once. */
const writeMarksTemplates = new Map<string, ReturnType<typeof statementTemplate>>();

function writeMarksSql(supplied: OptionalField[], allOrNothing: boolean): SQL {
  const submissionIds = sql.placeholder("submissionIds");
  const questionIds = sql.placeholder("questionIds");
  const callerId = sql.placeholder("callerId");
  const unnested = [
    sql`${sql.placeholder("markIds")}::uuid[]`,
    sql`${submissionIds}::uuid[]`,
    sql`${questionIds}::uuid[]`,
    sql`${sql.placeholder("awardedMarks")}::numeric[]`,
    ...supplied.map((field) => sql`${sql.placeholder(field)}::${optionalColumns[field].type}`),
  ];
  const suppliedNames = supplied.map((field) => sql.raw(`, ${field}`));
  // What is written of each supplied field: annotation_shape_ids keeps only the ids that name a shape of
  // the first marking on the same script, in the order given (docs/decisions/marking-quality.md, "Annotations on the scan").
  const writtenValues = supplied.map((field) => (field === "annotation_shape_ids" ? sql`, ${keptShapeIds}` : sql.raw(`, ${field}`)));
  const isConfirmedValue = sql`saved.confirmed and saved.awarded_marks is not null`;
  // A write with a detail may apply rubric items: their sum is the mark, and items not of the question are refused.
  const withRubric = supplied.includes("mark_scheme_detail");
  const rubricJoin = withRubric
    ? sql`
      left join lateral (
        select tally.awarded, tally.unknown_items from app.rubric_mark(w.mark_scheme_detail, w.question_id, q.max_marks) tally
        where w.mark_scheme_detail ->> 'type' = 'rubric'
      ) rubric on true`
    : sql``;
  // Without a detail, a typed mark that differs from a rubric mark's sum replaces it: the items no longer say what it is made of.
  const keepDetail = withRubric
    ? sql``
    : sql`, mark_scheme_detail = case when ${examMarkEntries.mark_scheme_detail} ->> 'type' = 'rubric'
          and ${examMarkEntries.awarded_marks} is distinct from excluded.awarded_marks then null else ${examMarkEntries.mark_scheme_detail} end`;
  return sql`with w as (
      select * from unnest(${sql.join(unnested, sql`, `)}) with ordinality
        as w(id, submission_id, question_id, awarded_marks${sql.join(suppliedNames, sql``)}, position)
    ),
    context as materialized (
      select w.*, ${withRubric ? sql`rubric.awarded` : sql`null::numeric`} as rubric_awarded, s.batch_id, s.status, b.template_id, q.label,
        q.max_marks::text as max_marks, ${refusalCase(withRubric, callerId)} as refusal
      from w
      left join (select id, batch_id, status from ${examSubmissions} where id = any(${submissionIds}::uuid[]) and ${isRunningAs(callerId)}) s on s.id = w.submission_id
      left join ${examBatches} b on b.id = s.batch_id
      left join (select id, template_id, label, is_container, max_marks from ${examQuestions} where id = any(${questionIds}::uuid[])) q on q.id = w.question_id
      left join ${examReconciliations} reconciled on reconciled.submission_id = w.submission_id and reconciled.question_id = w.question_id
      left join lateral (select case when b.teacher_id <> ${callerId}::uuid and not b.has_markers
        then app.mark_write_refusal(b.id, w.submission_id, w.question_id) end as refusal) writer on true
      left join lateral (select case when b.has_markers
        then app.mark_write_claim(b.id, w.submission_id, w.question_id, ${sql.raw(String(CLAIM_SECONDS))}) end as refusal) shared on true${rubricJoin}
    ),
    saved as (
      insert into ${examMarkEntries} (id, submission_id, question_id, batch_id, awarded_marks, marked_by, marked_by_user_id${sql.join(suppliedNames, sql``)})
      select id, submission_id, question_id, batch_id, coalesce(rubric_awarded, awarded_marks), 'teacher', ${callerId}::uuid${sql.join(writtenValues, sql``)}
      from context where refusal is null
      on conflict (submission_id, question_id) do update set awarded_marks = excluded.awarded_marks, marked_by = excluded.marked_by,
        marked_by_user_id = excluded.marked_by_user_id, updated_at = now()${keepDetail}${sql.join(
          supplied.map((field) => sql.raw(`, ${field} = excluded.${field}`)),
          sql``,
        )}
      returning *
    ),
    progress as materialized (
      select c.submission_id, c.status, case when bool_or(${isConfirmedValue})
          then app.submission_progress(c.submission_id, c.template_id, array_agg(saved.question_id)) end as counts,
        count(*) filter (where ${isConfirmedValue}) as confirmed_written
      from context c join saved on saved.submission_id = c.submission_id and saved.question_id = c.question_id
      group by c.submission_id, c.status, c.template_id
    ),
    moved as (
      update ${examSubmissions} s set status = next.status, updated_at = now()
      from (select submission_id, status as before,
          ${nextSubmissionStatus(sql`status`, sql`(counts).leaves`, sql`(counts).confirmed + confirmed_written`)} as status from progress) next
      where s.id = next.submission_id and next.status <> next.before
    )
    select c.position::int as position, c.refusal, c.label, c.max_marks, saved.id, saved.submission_id, saved.question_id, saved.batch_id,
      saved.awarded_marks::text as awarded_marks, saved.mark_scheme_detail, saved.annotation_shape_ids, saved.comment, saved.confirmed,
      saved.marked_by, saved.marked_by_user_id, saved.created_at, saved.updated_at
    from context c left join saved on saved.submission_id = c.submission_id and saved.question_id = c.question_id${
      allOrNothing
        ? sql`
    where app.mark_write_all_or_nothing(c.refusal, json_build_object('refusal', c.refusal,
      'position', (${sql.placeholder("positions")}::int[])[c.position], 'label', c.label, 'max_marks', c.max_marks)::text)`
        : sql``
    }`;
}

/**
 * A write's annotation_shape_ids (inside writeMarks' insert, over `context`) without the ids that name no
 * shape of the first marking on its script: a shape not saved (yet), removed, of another script or of a
 * blind second marking. The mark is saved all the same: the mark is what matters, a shape only shows it.
 */
const keptShapeIds = sql`(select coalesce(jsonb_agg(shape.id order by shape.position), '[]'::jsonb)
      from jsonb_array_elements_text(context.annotation_shape_ids) with ordinality as shape(id, position)
      where exists (select 1 from exam_annotations a
        where a.id::text = lower(shape.id) and a.submission_id = context.submission_id and a.layer = 'marking'))`;

/** A mark as writeMarks answers it (timestamps as the driver gives them: a Date or a string). */
function markFromWrittenRow(row: Record<string, unknown>): Mark {
  return markFromRow({ ...(row as MarkRow), created_at: new Date(row.created_at as string), updated_at: new Date(row.updated_at as string) });
}

/** The database errors a write of marks may meet, as the caller's errors; others as they are. */
export function markWriteError(error: unknown): unknown {
  if (postgresErrorCode(error) === UNIQUE_VIOLATION) {
    return new AppError("conflict", "mark id already names the mark of another submission or question");
  }
  if (postgresErrorCode(error) === FOREIGN_KEY_VIOLATION) {
    // The owner replaced the canvas while this mark was being written (the question row is gone).
    return new AppError("conflict", "The template's questions changed while marking; reload and try again");
  }
  return error;
}

/**
 * A PostgreSQL array literal: one parameter, any length. Every element is quoted (backslash and
 * double quote escaped), null is NULL.
 */
const pgArray = (values: (string | null)[]) =>
  `{${values.map((value) => (value === null ? "NULL" : `"${value.replace(/[\\"]/g, "\\$&")}"`)).join(",")}}`;

export type SubmissionStatus = (typeof examSubmissions.$inferSelect)["status"];

/**
 * The status rule of marks, over SQL expressions: complete when every leaf question has a confirmed
 * mark with a value; otherwise absent, unmatched and complete become marking and the other statuses
 * stay. `leaves` and `confirmed` may be null (not counted): then it is not complete.
 */
const nextSubmissionStatus = (current: SQL, leaves: SQL, confirmed: SQL) =>
  sql`(case when ${leaves} > 0 and ${confirmed} = ${leaves} then 'complete'
    when ${current} in ('absent', 'unmatched', 'complete') then 'marking' else ${current}::text end)::submission_status`;

/** The status of a submission by the rule above, from its marks as they stand in this transaction. */
export async function statusAfterMark(tx: Tx, submissionId: string, templateId: string, current: SubmissionStatus): Promise<SubmissionStatus> {
  const [row] = rowsOf<{ status: SubmissionStatus }>(
    await tx.execute(sql`select ${nextSubmissionStatus(sql`${current}::submission_status`, sql`counts.leaves`, sql`counts.confirmed`)}::text as status
      from app.submission_progress(${submissionId}, ${templateId}, '{}') counts`),
  );
  return row!.status;
}
