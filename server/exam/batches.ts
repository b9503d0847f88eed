import { randomInt } from "node:crypto";
import { and, asc, desc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { text } from "../../lib/rules/input-rules";
import { recordId } from "../http/record-id";
import type { Db, Tx } from "../db/client";
import { asService, asUser } from "../db/rls";
import { classes, enrollments, examBatches, examMarkEntries, examQuestions, examSubmissions, examTemplates, matchingMethod, users } from "../db/schema";
import { AppError, notFound } from "../errors";
import { type NamesShown, batchNames, namesForReader, presentSubmission } from "./anonymity";
import { openBatchFor } from "./batch-gate";

// ── Schemas ────────────────────────────────────────────────────────────────────────────────────

/** CreateBatchRequest: template_id required; class_id optional (no roster without it); title defaults to the template's. */
export const createBatchInput = z.object({
  template_id: z.uuid("template_id must be a template id"),
  class_id: z.uuid("class_id must be a class id").nullish(),
  title: text(300).trim().min(1, "title must not be blank").nullish(),
  anonymous: z
    .boolean({ error: "anonymous must be true or false" })
    .optional()
    .describe('Anonymous marking: reads of the batch name each script "Script N", never its student (default false)'),
});
export const listBatchesInput = z.object({
  include_archived: z.boolean().default(false),
  template_id: z.uuid("template_id must be a template id").optional().describe("Only batches of this template"),
});
export const batchIdInput = z.object({ batch_id: recordId("Batch") });
/** PATCH /api/exam/batches/{id}: the batch's settings the owner may change. */
const batchSettingsBody = z.object({
  anonymous: z.boolean({ error: "anonymous must be true or false" }).describe('Anonymous marking: reads of the batch name each script "Script N", never its student'),
});
export const setAnonymousInput = batchSettingsBody.extend({ batch_id: recordId("Batch") });
/** The results (and CSV): `reveal_names` asks for the students' names of an anonymous batch (its owner only). */
export const resultsInput = batchIdInput.extend({ reveal_names: z.boolean().default(false) });

export const batchOutput = z.object({
  id: z.uuid(),
  template_id: z.uuid(),
  class_id: z.uuid().nullable(),
  institute_id: z.uuid(),
  teacher_id: z.uuid(),
  title: z.string(),
  status: z.enum(["open", "archived"]),
  /** Anonymous marking: submissions are read without the student's name and id ("Script 17"). */
  anonymous: z.boolean(),
  /** Shared marking: the owner has invited markers, who mark only their allocation. */
  has_markers: z.boolean(),
  created_at: z.date(),
  archived_at: z.date().nullable(),
});
export const createdBatchOutput = batchOutput.extend({ submission_count: z.number().int() });
export const batchListOutput = z.object({ batches: z.array(batchOutput) });

const submissionStatusValues = ["absent", "unmatched", "matched", "marking", "complete"] as const;
export const submissionOutput = z.object({
  id: z.uuid(),
  batch_id: z.uuid(),
  /** Null also where the batch is anonymous (has_student says whether a student is named on it). */
  student_id: z.uuid().nullable(),
  student_name: z.string().nullable(),
  /** Whether a student is named on the submission (false: a scan still to identify), anonymous or not. */
  has_student: z.boolean(),
  status: z.enum(submissionStatusValues),
  scan_url: z.string().nullable(),
  qr_code: z.string().nullable(),
  matching_method: z.enum(matchingMethod.enumValues).nullable(),
  page_count: z.number().int().nullable(),
  /** "Script 17": the script's number in its batch (what anonymous marking shows instead of the name). */
  script_number: z.number().int(),
  /** When a teacher marked the student absent; null for "no scan yet" (status absent alone says neither). */
  absence_marked_at: z.date().nullable(),
  created_at: z.date(),
  updated_at: z.date(),
});
export const queueOutput = z.object({
  batch: batchOutput,
  submissions: z.array(submissionOutput.extend({ mark_entry_count: z.number().int() })),
  progress: z.object({ total: z.number().int(), absent: z.number().int(), complete: z.number().int(), in_progress: z.number().int() }),
});
export const resultsOutput = z.object({
  batch: batchOutput,
  /** "hidden" for an anonymous batch unless its owner asked to reveal them: student_name and student_id are then null. */
  names: z.enum(["shown", "hidden"]),
  questions: z.array(z.object({ id: z.uuid(), label: z.string(), max_marks: z.number().nullable(), order: z.number().int() })),
  results: z.array(
    z.object({
      submission_id: z.uuid(),
      student_id: z.uuid().nullable(),
      student_name: z.string().nullable(),
      has_student: z.boolean(),
      script_number: z.number().int(),
      status: z.enum(submissionStatusValues),
      absence_marked_at: z.date().nullable(),
      marks: z.record(z.string(), z.number().nullable()),
      total: z.number().nullable(),
    }),
  ),
});

type BatchRow = typeof examBatches.$inferSelect;
export type BatchResults = z.output<typeof resultsOutput>;

// ── Rules ──────────────────────────────────────────────────────────────────────────────────────

/**
 * Creates a batch: template visible (else 404) and not archived (409); institute inherited from the
 * template; teacher is the caller; status open; with class_id (a visible class of that institute,
 * else 404) one absent submission per active enrollee, names denormalised. Three steps because the
 * roster names are a service-level read, which cannot run inside the caller's transaction on PGlite:
 * check as the caller, read the roster as the service, then write everything as the caller in one
 * transaction.
 */
export async function createBatch(db: Db, callerId: string, input: z.input<typeof createBatchInput>) {
  const values = createBatchInput.parse(input);
  const template = await asUser(db, callerId, (tx) => checkBatchSources(tx, values));
  const roster = values.class_id ? await activeRoster(db, values.class_id) : [];
  return asUser(db, callerId, async (tx) => {
    await checkBatchSources(tx, values);
    const [batch] = await tx
      .insert(examBatches)
      .values({
        template_id: template.id,
        class_id: values.class_id ?? null,
        institute_id: template.institute_id,
        teacher_id: callerId,
        title: values.title ?? template.title,
        status: "open",
        anonymous: values.anonymous ?? false,
      })
      .returning();
    if (!batch) throw new AppError("internal", "The batch could not be created");
    if (roster.length > 0) {
      // Inserted in a shuffled order: the numbering trigger numbers them as they come, so "Script 17"
      // says nothing of where its name comes in the class list (anonymous marking).
      await tx.insert(examSubmissions).values(shuffled(roster).map((student) => ({ batch_id: batch.id, ...student, status: "absent" as const })));
    }
    return { ...batch, submission_count: roster.length };
  });
}

async function checkBatchSources(tx: Tx, values: z.output<typeof createBatchInput>) {
  const [template] = await tx.select().from(examTemplates).where(eq(examTemplates.id, values.template_id));
  if (!template) throw notFound("Template");
  if (template.status === "archived") throw new AppError("conflict", "The template is archived: restore it before starting a batch");
  if (values.class_id) {
    const [found] = await tx
      .select({ id: classes.id })
      .from(classes)
      .where(and(eq(classes.id, values.class_id), eq(classes.institute_id, template.institute_id)));
    if (!found) throw notFound("Class");
  }
  return template;
}

/**
 * Active enrollees of a class with their names: the contract's named service-level read (docs/spec/classroom-api.md
 * "What the service does").
 */
async function activeRoster(db: Db, classId: string) {
  return asService(db, (tx) =>
    tx
      .select({ student_id: users.id, student_name: users.full_name })
      .from(enrollments)
      .innerJoin(users, eq(users.id, enrollments.student_id))
      .where(and(eq(enrollments.class_id, classId), eq(enrollments.active, true)))
      .orderBy(asc(users.full_name), asc(users.id)),
  );
}

export async function listBatches(tx: Tx, input: z.input<typeof listBatchesInput>): Promise<BatchRow[]> {
  const filters = listBatchesInput.parse(input);
  return tx
    .select()
    .from(examBatches)
    .where(
      and(
        filters.include_archived ? undefined : eq(examBatches.status, "open"),
        filters.template_id ? eq(examBatches.template_id, filters.template_id) : undefined,
      ),
    )
    .orderBy(desc(examBatches.created_at), desc(examBatches.id));
}

/** A batch the caller can see (staff of its institute), 404 otherwise. */
export async function findVisibleBatch(tx: Tx, batchId: string): Promise<BatchRow> {
  const [batch] = await tx.select().from(examBatches).where(eq(examBatches.id, batchId));
  if (!batch) throw notFound("Batch");
  return batch;
}

/** Archives a batch (owner only, 403 otherwise; a signed-off batch too); idempotent. An archived batch refuses every write (batch-gate.ts). */
export async function archiveBatch(tx: Tx, callerId: string, batchId: string): Promise<BatchRow> {
  const batch = await openBatchFor(tx, callerId, batchId, "archive");
  if (batch.status === "archived") return batch;
  const [archived] = await tx
    .update(examBatches)
    .set({ status: "archived", archived_at: new Date() })
    .where(eq(examBatches.id, batchId))
    .returning();
  return archived!;
}

/**
 * Turns anonymous marking on or off (owner only, 403 otherwise; 409 when archived or signed off, since
 * such a batch's results are final as they were read). Idempotent.
 */
export async function setBatchAnonymous(tx: Tx, callerId: string, input: z.input<typeof setAnonymousInput>): Promise<BatchRow> {
  const { batch_id: batchId, anonymous } = setAnonymousInput.parse(input);
  const batch = await openBatchFor(tx, callerId, batchId, "change_settings");
  if (batch.anonymous === anonymous) return batch;
  const [updated] = await tx.update(examBatches).set({ anonymous }).where(eq(examBatches.id, batchId)).returning();
  if (!updated) throw notFound("Batch");
  return updated;
}

/**
 * Roster order: by name (unnamed, unmatched scans last), then arrival. Where names are hidden, by script
 * number: an order by name would tell where each script's student comes in the class list.
 */
export const rosterOrder = (names: NamesShown) =>
  names === "shown"
    ? [sql`${examSubmissions.student_name} asc nulls last`, asc(examSubmissions.created_at), asc(examSubmissions.id)]
    : [asc(examSubmissions.script_number), asc(examSubmissions.id)];

export async function getQueue(tx: Tx, batchId: string): Promise<z.output<typeof queueOutput>> {
  const batch = await findVisibleBatch(tx, batchId);
  const submissions = await tx
    .select({
      submission: examSubmissions,
      // Qualified by hand: inside a subquery drizzle would print the bare column names.
      mark_entry_count: sql<number>`(select count(*)::int from exam_mark_entries entry where entry.submission_id = exam_submissions.id)`,
    })
    .from(examSubmissions)
    .where(eq(examSubmissions.batch_id, batchId))
    .orderBy(...rosterOrder(batchNames(batch)));
  const count = (...statuses: string[]) => submissions.filter((row) => statuses.includes(row.submission.status)).length;
  return {
    batch,
    submissions: submissions.map((row) => ({ ...presentSubmission(row.submission, batchNames(batch)), mark_entry_count: Number(row.mark_entry_count) })),
    progress: { total: submissions.length, absent: count("absent"), complete: count("complete"), in_progress: count("matched", "marking") },
  };
}

/**
 * Results: leaf questions in order (containers never hold marks), one result per submission including
 * absent ones. Total rule: with any marks, the sum of awarded marks (null counts as 0); with none,
 * null for an absent submission and 0 otherwise. Four statements whatever the batch size; sums are
 * computed by the database in numeric, so totals never drift. An anonymous batch's names are hidden
 * unless its owner asks to reveal them (anyone else asking: 403).
 */
export async function getResults(tx: Tx, callerId: string, input: z.input<typeof resultsInput>): Promise<BatchResults> {
  const { batch_id: batchId, reveal_names: reveal } = resultsInput.parse(input);
  const batch = await findVisibleBatch(tx, batchId);
  const names = namesForReader(batch, callerId, reveal);
  const questions = await tx
    .select({ id: examQuestions.id, label: examQuestions.label, max_marks: examQuestions.max_marks, order: examQuestions.order })
    .from(examQuestions)
    .where(and(eq(examQuestions.template_id, batch.template_id), eq(examQuestions.is_container, false)))
    .orderBy(asc(examQuestions.order), asc(examQuestions.label), asc(examQuestions.id));
  const submissions = await tx
    .select({
      submission_id: examSubmissions.id,
      student_id: examSubmissions.student_id,
      student_name: examSubmissions.student_name,
      script_number: examSubmissions.script_number,
      status: examSubmissions.status,
      absence_marked_at: examSubmissions.absence_marked_at,
    })
    .from(examSubmissions)
    .where(eq(examSubmissions.batch_id, batchId))
    .orderBy(...rosterOrder(names));
  const marks = await tx
    .select({
      submission_id: examMarkEntries.submission_id,
      totals: sql<{ entries: number; sum: string }>`json_build_object('entries', count(*), 'sum', coalesce(sum(${examMarkEntries.awarded_marks}), 0)::text)`,
      awarded: sql<Record<string, string | number | null>>`json_object_agg(${examMarkEntries.question_id}, ${examMarkEntries.awarded_marks})`,
    })
    .from(examMarkEntries)
    .where(eq(examMarkEntries.batch_id, batchId))
    .groupBy(examMarkEntries.submission_id);
  const marksBySubmission = new Map(marks.map((row) => [row.submission_id, row]));
  return {
    batch,
    names,
    questions: questions.map((q) => ({ ...q, max_marks: q.max_marks === null ? null : Number(q.max_marks) })),
    results: submissions.map((submission) => {
      const recorded = marksBySubmission.get(submission.submission_id);
      const awarded = recorded?.awarded ?? {};
      const total = recorded && Number(recorded.totals.entries) > 0 ? Number(recorded.totals.sum) : submission.status === "absent" ? null : 0;
      return {
        ...presentSubmission(submission, names),
        marks: Object.fromEntries(questions.map((q) => [q.id, awarded[q.id] === undefined || awarded[q.id] === null ? null : Number(awarded[q.id])])),
        total,
      };
    }),
  };
}

/** A copy of `items` in a uniformly random order (Fisher–Yates). */
function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index--) {
    const other = randomInt(index + 1);
    [copy[index], copy[other]] = [copy[other]!, copy[index]!];
  }
  return copy;
}
