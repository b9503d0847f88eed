import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import { type Tx, rowsOf } from "../../db/client";
import { examBatches, examModerationSamples } from "../../db/schema";
import { AppError } from "../../errors";
import { recordId } from "../../http/record-id";
import { type BatchRow, openBatchFor } from "../batch-gate";
import { findVisibleBatch } from "../batches";
import { queueStudentNotice } from "../../notifications/student-notices";

/**
 * Results back to students (issue 35, item 2): the batch's owner releases them (every script a student
 * sat, or only the completely marked ones), with review requests open until a date or not, and may
 * withdraw the release. What a student may then read is the database's rule (row-level security reads
 * exam_submissions.released_at and exam_batches.released_at: drizzle/…_returns_security.sql); this module
 * sets and clears both, in the caller's one transaction. docs/decisions/marking-quality.md ("Decisions: releasing results to students") says why.
 */

const releaseScopes = ["all", "complete"] as const;
type ReleaseScope = (typeof releaseScopes)[number];

/** The sentence of the 409 a release of a batch under moderation gets without `confirm_unmoderated`: the dialog shows it as its warning. */
export const UNMODERATED_RELEASE =
  "This batch is being moderated and is not signed off yet: marks may still change after students have read them. Release anyway only if you mean to (confirm_unmoderated: true), or ask a department head to sign it off first";

export const releaseBatchInput = z.object({ batch_id: recordId("Batch") });

/** PUT /api/exam/batches/{batch_id}/release: strict, so a misspelt field is a 400 rather than a release without it. */
export const releaseInput = z.strictObject({
  batch_id: recordId("Batch"),
  scope: z
    .enum(releaseScopes, { error: 'Scope: say "all" (every script a student sat) or "complete" (only completely marked scripts)' })
    .describe('"all": every script with a student and a scan or marks; "complete": only scripts whose marking is complete'),
  reviews_until: z
    .iso.datetime({ offset: true, error: "Reviews open until: must be a date and time (ISO 8601, with its offset), or null for no reviews" })
    .nullable()
    .optional()
    .describe("Until when students may ask for a review of a question (in the future); null or absent: no reviews"),
  confirm_unmoderated: z
    .boolean({ error: "confirm_unmoderated: must be true or false" })
    .optional()
    .describe("Release a batch under moderation that is not signed off (otherwise 409 with the warning)"),
});

export const releaseStatusOutput = z.object({
  batch_id: z.uuid(),
  released: z.boolean(),
  scope: z.enum(releaseScopes).nullable().describe("Null while not released"),
  released_at: z.date().nullable().describe("When the batch was first released (a new scope keeps it); null while not released"),
  released_by: z.uuid().nullable(),
  released_by_name: z.string().nullable(),
  reviews_until: z.date().nullable().describe("Until when students may ask for reviews; null: no reviews"),
  released_scripts: z.number().int().describe("Scripts their students can read now"),
  complete_scripts: z.number().int().describe("Scripts of students whose marking is complete"),
  incomplete_scripts: z.number().int().describe("Scripts of students with a scan or marks whose marking is not complete"),
  scripts_without_work: z.number().int().describe("Students with neither a scan nor a mark (absent): never released"),
  moderation_pending: z.boolean().describe("The batch has a moderation sample and is not signed off: a release needs confirm_unmoderated"),
  signed_off: z.boolean(),
  archived: z.boolean(),
  can_release: z.boolean().describe("The caller is the batch's owner and the batch is not archived"),
  can_withdraw: z.boolean().describe("The caller is the batch's owner and the batch is released"),
});
export type ReleaseStatus = z.output<typeof releaseStatusOutput>;

/** A script a release of `scope` includes: only a student's; with a scan or marks (`all`), or completely marked (`complete`). */
const inScope = (scope: ReleaseScope) =>
  scope === "complete"
    ? sql`student_id is not null and status = 'complete'`
    : sql`student_id is not null and (scan_url is not null or status <> 'absent')`;

async function moderationPending(tx: Tx, batch: BatchRow): Promise<boolean> {
  if (batch.signed_off) return false;
  const [sample] = await tx.select({ batch_id: examModerationSamples.batch_id }).from(examModerationSamples).where(eq(examModerationSamples.batch_id, batch.id));
  return sample !== undefined;
}

/**
 * The batch's owner releases its results: `scope` says which scripts (a script out of it is un-released,
 * so releasing again replaces the scope), `reviews_until` until when reviews may be asked (in the future)
 * or null. 404 for a batch the caller cannot see, 403 for staff who do not own it, 409 on an archived
 * batch, on a batch under moderation not signed off without `confirm_unmoderated`, and when the scope
 * holds no script. A signed-off batch may be released.
 */
export async function releaseResults(tx: Tx, callerId: string, input: z.input<typeof releaseInput>): Promise<ReleaseStatus> {
  const { batch_id: batchId, scope, reviews_until: reviewsUntil, confirm_unmoderated: confirmed } = releaseInput.parse(input);
  const batch = await openBatchFor(tx, callerId, batchId, "release", { lock: true });
  const [clock] = rowsOf<{ now: string | Date }>(await tx.execute(sql`select now() as now`));
  const now = new Date(clock!.now);
  const until = reviewsUntil ? new Date(reviewsUntil) : null;
  if (until && until.getTime() <= now.getTime()) {
    throw new AppError("invalid", "Reviews open until: must be in the future (or leave it empty for no reviews)", "reviews_until");
  }
  if (!confirmed && (await moderationPending(tx, batch))) throw new AppError("conflict", UNMODERATED_RELEASE);

  const [counted] = rowsOf<{ count: number | string }>(
    await tx.execute(sql`select count(*) as count from exam_submissions where batch_id = ${batchId} and ${inScope(scope)}`),
  );
  if (Number(counted?.count ?? 0) === 0) {
    throw new AppError(
      "conflict",
      scope === "complete"
        ? "No script of this batch is completely marked yet: releasing only complete scripts would release nothing"
        : "No student of this batch has a scan or a mark yet: there is nothing to release",
    );
  }
  // Released now for the first time (or again after a withdrawal): their students are told, when e-mail is set up.
  const newlyReleased = rowsOf<{ id: string }>(
    await tx.execute(sql`select id from exam_submissions where batch_id = ${batchId} and released_at is null and ${inScope(scope)}`),
  );
  // One statement: a script in scope keeps the time it was first released, one out of scope is un-released.
  await tx.execute(sql`update exam_submissions
    set released_at = case when ${inScope(scope)} then coalesce(released_at, now()) else null end
    where batch_id = ${batchId} and (released_at is not null or (${inScope(scope)}))`);
  await tx
    .update(examBatches)
    .set({ released_at: batch.released_at ?? now, released_by: callerId, release_scope: scope, reviews_until: until })
    .where(eq(examBatches.id, batchId));
  for (const { id } of newlyReleased) await queueStudentNotice(tx, { notice: "released", submission_id: id });
  return releaseStatus(tx, callerId, { batch_id: batchId });
}

/** The owner withdraws the release: no script of the batch is readable by its student any more. Idempotent; allowed on a signed-off or archived batch. */
export async function withdrawRelease(tx: Tx, callerId: string, input: z.input<typeof releaseBatchInput>): Promise<ReleaseStatus> {
  const { batch_id: batchId } = releaseBatchInput.parse(input);
  const batch = await openBatchFor(tx, callerId, batchId, "withdraw_release", { lock: true });
  await tx.execute(sql`update exam_submissions set released_at = null where batch_id = ${batchId} and released_at is not null`);
  if (batch.released_at !== null || batch.release_scope !== null || batch.reviews_until !== null) {
    await tx.update(examBatches).set({ released_at: null, released_by: null, release_scope: null, reviews_until: null }).where(eq(examBatches.id, batchId));
  }
  return releaseStatus(tx, callerId, { batch_id: batchId });
}

/** GET /api/exam/batches/{batch_id}/release: what staff who see the batch read of its release (404 for anyone else, students included). */
export async function releaseStatus(tx: Tx, callerId: string, input: z.input<typeof releaseBatchInput>): Promise<ReleaseStatus> {
  const { batch_id: batchId } = releaseBatchInput.parse(input);
  const batch = await findVisibleBatch(tx, batchId);
  const [counts] = rowsOf<{ released: number | string; complete: number | string; incomplete: number | string; without_work: number | string }>(
    await tx.execute(sql`select
        count(*) filter (where released_at is not null) as released,
        count(*) filter (where ${inScope("complete")}) as complete,
        count(*) filter (where ${inScope("all")} and status <> 'complete') as incomplete,
        count(*) filter (where student_id is not null and scan_url is null and status = 'absent') as without_work
      from exam_submissions where batch_id = ${batchId}`),
  );
  const [releaser] = batch.released_by
    ? rowsOf<{ full_name: string | null }>(await tx.execute(sql`select full_name from users where id = ${batch.released_by}`))
    : [];
  const isOwner = batch.teacher_id === callerId;
  const released = batch.released_at !== null;
  return {
    batch_id: batch.id,
    released,
    scope: released ? (batch.release_scope as ReleaseScope) : null,
    released_at: batch.released_at,
    released_by: released ? batch.released_by : null,
    released_by_name: released ? (releaser?.full_name ?? null) : null,
    reviews_until: batch.reviews_until,
    released_scripts: Number(counts?.released ?? 0),
    complete_scripts: Number(counts?.complete ?? 0),
    incomplete_scripts: Number(counts?.incomplete ?? 0),
    scripts_without_work: Number(counts?.without_work ?? 0),
    moderation_pending: await moderationPending(tx, batch),
    signed_off: batch.signed_off,
    archived: batch.status === "archived",
    can_release: isOwner && batch.status !== "archived",
    can_withdraw: isOwner && released,
  };
}
