import { and, asc, eq, sql } from "drizzle-orm";
import { z } from "zod";
import { type Tx, rowsOf } from "../db/client";
import { examAllocations, examBatchMarkers, examMarkClaims, examQuestions, users } from "../db/schema";
import { AppError, notFound } from "../errors";
import { openBatchFor, rolesIn } from "./batch-gate";
import { findVisibleBatch } from "./batches";
import { recordId } from "../http/record-id";

/**
 * Shared marking (issue 19): the owner of a batch invites colleagues of the school as markers and
 * allocates them questions or ranges of scripts; each marker's queue is their allocation; a marker
 * claims the (script, question) they open, so nobody marks it at the same time. A batch without
 * markers is marked by its owner and the department heads of its school (batch-gate.ts); other staff
 * read it.
 *
 * Who may write which mark is decided by the database (app.mark_write_refusal,
 * server/db/sql/functions/mark_write_refusal.sql): the mark write (marks.ts) reads it as a refusal
 * code, and restrictive policies of exam_mark_entries refuse
 * any other write outside it. This module manages markers, allocations and claims, as the caller.
 */

/**
 * How long a claim lasts without a save: long enough to read a long answer and write a comment (a save
 * renews it), short enough that a marker who walks away does not hold a pair for a lesson.
 */
export const CLAIM_SECONDS = 600;
/** Allocation rows a marker may have (a question each, or ranges): more is a mistake, not a plan. */
const MAX_ALLOCATIONS = 100;

const scriptNumber = z.number({ error: "a script number must be a whole number" }).int("a script number must be a whole number").min(1).max(9999);

const allocationBody = z
  .object({
    question_id: z.uuid("question_id must be a question id").nullable().optional().describe("A leaf question; null or absent: every question"),
    first_script: scriptNumber.nullable().optional().describe("First script number of the range (inclusive); null or absent: from the first"),
    last_script: scriptNumber.nullable().optional().describe("Last script number of the range (inclusive); null or absent: to the last"),
  })
  .refine((allocation) => allocation.question_id != null || allocation.first_script != null || allocation.last_script != null, {
    message: "An allocation names a question, a range of scripts, or both",
  })
  .refine((allocation) => allocation.first_script == null || allocation.last_script == null || allocation.first_script <= allocation.last_script, {
    message: "first_script must not be after last_script",
    path: ["last_script"],
  });

export const batchMarkersInput = z.object({ batch_id: recordId("Batch") });
const inviteMarkerBody = z.object({ user_id: z.uuid("user_id must be a user id") });
export const inviteMarkerInput = batchMarkersInput.extend({ body: inviteMarkerBody });
export const markerInput = batchMarkersInput.extend({ user_id: recordId("Marker") });
const setAllocationsBody = z.object({ allocations: z.array(allocationBody).max(MAX_ALLOCATIONS, `at most ${MAX_ALLOCATIONS} allocations`) });
export const setAllocationsInput = markerInput.extend({ body: setAllocationsBody });
const markingOrder = z.enum(["script", "question"]);
const claimBody = z
  .object({
    submission_id: z.uuid("submission_id must be a submission id").optional(),
    question_id: z.uuid("question_id must be a question id").optional(),
    by: markingOrder.default("script").describe("Order of the next pair when none is named: script by script, or question by question"),
  })
  .refine((body) => (body.submission_id === undefined) === (body.question_id === undefined), {
    message: "Name both submission_id and question_id, or neither (the next pair of your allocation)",
  });
export const claimInput = batchMarkersInput.extend({ body: claimBody });
const releaseBody = z.object({ submission_id: z.uuid("submission_id must be a submission id"), question_id: z.uuid("question_id must be a question id") });
export const releaseInput = batchMarkersInput.extend({ body: releaseBody });

const allocationOutput = z.object({
  id: z.uuid(),
  question_id: z.uuid().nullable(),
  question_label: z.string().nullable(),
  first_script: z.number().int().nullable(),
  last_script: z.number().int().nullable(),
});
const markerOutput = z.object({
  user_id: z.uuid(),
  full_name: z.string(),
  added_at: z.date(),
  allocations: z.array(allocationOutput),
});
export const markersOutput = z.object({
  batch_id: z.uuid(),
  shared: z.boolean().describe("The batch has markers: only its owner and its markers, within their allocations, write marks"),
  markers: z.array(markerOutput),
  candidates: z.array(z.object({ user_id: z.uuid(), full_name: z.string() })).describe("Active staff of the school the owner may invite (empty for anyone else)"),
});
const claimOutput = z.object({
  submission_id: z.uuid(),
  question_id: z.uuid(),
  script_number: z.number().int(),
  marker_id: z.uuid(),
  expires_at: z.date(),
});
export const claimReply = z.object({ claim: claimOutput.nullable().describe("null: nothing of your allocation is left to claim") });
export const myWorkOutput = z.object({
  batch_id: z.uuid(),
  shared: z.boolean(),
  role: z.enum(["owner", "marker", "colleague"]).describe("The caller's part in the batch"),
  marks: z
    .enum(["everything", "allocation", "nothing"])
    .describe("What the caller may mark: everything (the owner or a department head of the school), their allocation (a marker), nothing (any other colleague: they read the batch)"),
  allocations: z.array(allocationOutput),
  scripts: z.array(
    z.object({
      submission_id: z.uuid(),
      script_number: z.number().int(),
      question_ids: z.array(z.uuid()).describe("The leaf questions of this script that are the caller's to mark"),
      done: z.number().int().describe("Of those, how many have a confirmed mark with a value"),
      claimed_by_others: z.array(z.uuid()).describe("Of those, the questions another marker holds a claim on now"),
    }),
  ),
});
export const progressOutput = z.object({
  batch_id: z.uuid(),
  shared: z.boolean(),
  markers: z.array(
    z.object({
      user_id: z.uuid(),
      full_name: z.string(),
      is_marker: z.boolean().describe("false: the owner, or a colleague who marked before the batch was shared"),
      allocated: z.number().int().nullable().describe("(script, question) pairs of their allocation among scripts with a scan; null without an allocation"),
      done: z.number().int().nullable().describe("Of those, pairs with a confirmed mark with a value"),
      marks_written: z.number().int().describe("Marks of the batch last written by them"),
      claims: z.number().int().describe("Claims they hold now"),
    }),
  ),
});

async function allocationsOf(tx: Tx, batchId: string, markerId?: string) {
  return tx
    .select({
      id: examAllocations.id,
      marker_id: examAllocations.marker_id,
      question_id: examAllocations.question_id,
      question_label: examQuestions.label,
      first_script: examAllocations.first_script,
      last_script: examAllocations.last_script,
    })
    .from(examAllocations)
    .leftJoin(examQuestions, eq(examQuestions.id, examAllocations.question_id))
    .where(and(eq(examAllocations.batch_id, batchId), markerId ? eq(examAllocations.marker_id, markerId) : undefined))
    .orderBy(asc(examQuestions.order), asc(examAllocations.first_script), asc(examAllocations.created_at));
}

const withoutMarker = ({ marker_id: _marker, ...allocation }: Awaited<ReturnType<typeof allocationsOf>>[number]) => allocation;

/** GET /api/exam/batches/{batch_id}/markers: the markers with their allocations; the owner also gets whom they may invite. */
export async function listMarkers(tx: Tx, callerId: string, input: z.input<typeof batchMarkersInput>): Promise<z.output<typeof markersOutput>> {
  const { batch_id: batchId } = batchMarkersInput.parse(input);
  const batch = await findVisibleBatch(tx, batchId);
  const markers = await tx
    .select({ user_id: examBatchMarkers.user_id, full_name: users.full_name, added_at: examBatchMarkers.added_at })
    .from(examBatchMarkers)
    .innerJoin(users, eq(users.id, examBatchMarkers.user_id))
    .where(eq(examBatchMarkers.batch_id, batchId))
    .orderBy(asc(users.full_name));
  const allocations = await allocationsOf(tx, batchId);
  const candidates =
    batch.teacher_id === callerId
      ? rowsOf<{ user_id: string; full_name: string }>(
          await tx.execute(sql`select u.id as user_id, u.full_name from users u
            where u.id <> ${callerId} and app.is_active_staff_of_batch_school(u.id, ${batchId})
              and u.id not in (select user_id from exam_batch_markers where batch_id = ${batchId})
              and u.id in (select user_id from institute_memberships where institute_id = ${batch.institute_id})
            order by u.full_name`),
        )
      : [];
  return {
    batch_id: batchId,
    shared: markers.length > 0,
    markers: markers.map((marker) => ({
      ...marker,
      allocations: allocations.filter((allocation) => allocation.marker_id === marker.user_id).map(withoutMarker),
    })),
    candidates,
  };
}

/** POST /api/exam/batches/{batch_id}/markers: the owner invites active staff of the batch's school (idempotent). */
export async function inviteMarker(tx: Tx, callerId: string, input: z.input<typeof inviteMarkerInput>): Promise<z.output<typeof markersOutput>> {
  const { batch_id: batchId, body } = inviteMarkerInput.parse(input);
  await openBatchFor(tx, callerId, batchId, "invite_marker");
  const userId = body.user_id.toLowerCase();
  if (userId === callerId) throw new AppError("invalid", "user_id: the batch's owner marks every question already", "user_id");
  const [staff] = rowsOf<{ ok: boolean }>(await tx.execute(sql`select app.is_active_staff_of_batch_school(${userId}, ${batchId}) as ok`));
  if (!staff?.ok) throw new AppError("invalid", "user_id: not an active member of staff of this batch's school", "user_id");
  await tx.insert(examBatchMarkers).values({ batch_id: batchId, user_id: userId, added_by: callerId }).onConflictDoNothing();
  return listMarkers(tx, callerId, { batch_id: batchId });
}

/**
 * DELETE /api/exam/batches/{batch_id}/markers/{user_id}: the owner removes a marker, with their
 * allocations and claims; their marks stay. The last marker removed makes the batch ordinary again.
 */
export async function removeMarker(tx: Tx, callerId: string, input: z.input<typeof markerInput>): Promise<z.output<typeof markersOutput>> {
  const { batch_id: batchId, user_id: userId } = markerInput.parse(input);
  await openBatchFor(tx, callerId, batchId, "remove_marker");
  const removed = await tx
    .delete(examBatchMarkers)
    .where(and(eq(examBatchMarkers.batch_id, batchId), eq(examBatchMarkers.user_id, userId)))
    .returning({ user_id: examBatchMarkers.user_id });
  if (removed.length === 0) throw notFound("Marker");
  await tx.delete(examMarkClaims).where(and(eq(examMarkClaims.batch_id, batchId), eq(examMarkClaims.marker_id, userId)));
  return listMarkers(tx, callerId, { batch_id: batchId });
}

/**
 * PUT /api/exam/batches/{batch_id}/markers/{user_id}/allocations: the owner replaces a marker's
 * allocations (an empty list: nothing to mark). Questions must be leaf questions of the batch's paper.
 */
export async function setAllocations(tx: Tx, callerId: string, input: z.input<typeof setAllocationsInput>): Promise<z.output<typeof markersOutput>> {
  const { batch_id: batchId, user_id: userId, body } = setAllocationsInput.parse(input);
  const batch = await openBatchFor(tx, callerId, batchId, "allocate");
  const [marker] = await tx
    .select({ user_id: examBatchMarkers.user_id })
    .from(examBatchMarkers)
    .where(and(eq(examBatchMarkers.batch_id, batchId), eq(examBatchMarkers.user_id, userId)));
  if (!marker) throw notFound("Marker");
  const questionIds = [...new Set(body.allocations.flatMap((allocation) => (allocation.question_id ? [allocation.question_id.toLowerCase()] : [])))];
  if (questionIds.length > 0) {
    const leaves = await tx
      .select({ id: examQuestions.id })
      .from(examQuestions)
      .where(and(eq(examQuestions.template_id, batch.template_id), eq(examQuestions.is_container, false), sql`${examQuestions.id} = any(${`{${questionIds.join(",")}}`}::uuid[])`));
    if (leaves.length !== questionIds.length) throw new AppError("invalid", "question_id: not a question that takes a mark on this batch's paper", "question_id");
  }
  await tx.delete(examAllocations).where(and(eq(examAllocations.batch_id, batchId), eq(examAllocations.marker_id, userId)));
  if (body.allocations.length > 0) {
    await tx.insert(examAllocations).values(
      body.allocations.map((allocation) => ({
        batch_id: batchId,
        marker_id: userId,
        question_id: allocation.question_id?.toLowerCase() ?? null,
        first_script: allocation.first_script ?? null,
        last_script: allocation.last_script ?? null,
      })),
    );
  }
  return listMarkers(tx, callerId, { batch_id: batchId });
}

/**
 * The (script, question) pairs of the batch that are the caller's to mark, as SQL: every leaf question
 * of every script with a scan for the owner and for an ordinary batch, the allocation for a marker,
 * nothing for a colleague who is not a marker of a shared batch. The rule is the database's
 * (app.mark_write_refusal), so the queue and the write cannot disagree.
 */
const myPairs = (batchId: string) => sql`select s.id as submission_id, s.script_number, q.id as question_id, q."order" as question_order, q.label
  from exam_submissions s
  join exam_batches b on b.id = s.batch_id
  join exam_questions q on q.template_id = b.template_id and not q.is_container
  where s.batch_id = ${batchId} and s.scan_url is not null
    and coalesce(app.mark_write_refusal(b.id, s.id, q.id), '') not in ('allocation', 'not_writer')`;

/** GET /api/exam/batches/{batch_id}/my-work: the caller's queue, what of the batch is theirs to mark. */
export async function myWork(tx: Tx, callerId: string, input: z.input<typeof batchMarkersInput>): Promise<z.output<typeof myWorkOutput>> {
  const { batch_id: batchId } = batchMarkersInput.parse(input);
  const batch = await findVisibleBatch(tx, batchId);
  const markers = await tx.select({ user_id: examBatchMarkers.user_id }).from(examBatchMarkers).where(eq(examBatchMarkers.batch_id, batchId));
  const shared = markers.length > 0;
  const parts = await rolesIn(tx, callerId, batch);
  const marker = parts.includes("marker");
  const role = parts.includes("owner") ? "owner" : marker ? "marker" : "colleague";
  // A department head marks every question, as the owner does (app.mark_write_refusal).
  const marks = parts.includes("owner") || parts.includes("head") ? "everything" : marker ? "allocation" : "nothing";
  const rows = rowsOf<{ submission_id: string; script_number: number; question_ids: string[]; done: number; claimed: string[] }>(
    await tx.execute(sql`select p.submission_id, p.script_number,
        array_agg(p.question_id order by p.question_order, p.label) as question_ids,
        count(m.id) filter (where m.confirmed and m.awarded_marks is not null)::int as done,
        coalesce(array_agg(c.question_id) filter (where c.question_id is not null), '{}') as claimed
      from (${myPairs(batchId)}) p
      left join exam_mark_entries m on m.submission_id = p.submission_id and m.question_id = p.question_id
      left join exam_mark_claims c on c.submission_id = p.submission_id and c.question_id = p.question_id
        and c.marker_id <> ${callerId} and c.expires_at > now()
      group by p.submission_id, p.script_number
      order by p.script_number`),
  );
  const allocations = role === "marker" ? (await allocationsOf(tx, batchId, callerId)).map(withoutMarker) : [];
  return {
    batch_id: batchId,
    shared,
    role,
    marks,
    allocations,
    scripts: rows.map((row) => ({
      submission_id: row.submission_id,
      script_number: Number(row.script_number),
      question_ids: pgUuidList(row.question_ids),
      done: Number(row.done),
      claimed_by_others: pgUuidList(row.claimed),
    })),
  };
}

/** A uuid[] as the drivers give it: an array (postgres.js, PGlite) or its text form. */
function pgUuidList(value: string[] | string): string[] {
  if (Array.isArray(value)) return value;
  const inner = value.replace(/^\{|\}$/g, "");
  return inner ? inner.split(",") : [];
}

type ClaimRow = { submission_id: string; question_id: string; script_number: number; marker_id: string; expires_at: Date | string };
const claimFromRow = (row: ClaimRow): z.output<typeof claimOutput> => ({
  submission_id: row.submission_id,
  question_id: row.question_id,
  script_number: Number(row.script_number),
  marker_id: row.marker_id,
  expires_at: new Date(row.expires_at),
});

/**
 * Claims one pair for the caller: INSERT … ON CONFLICT on the pair's primary key, taking over the row
 * only when its claim expired or is the caller's own. Two markers claiming at once: the second insert
 * waits for the first and then finds its row, unexpired and not theirs, so only one gets a row back.
 */
const claimPair = (batchId: string, callerId: string, pairs: ReturnType<typeof sql>) => sql`
  with candidate as (${pairs})
  insert into exam_mark_claims (submission_id, question_id, batch_id, marker_id, claimed_at, expires_at)
  select submission_id, question_id, ${batchId}::uuid, ${callerId}::uuid, now(), now() + make_interval(secs => ${sql.raw(String(CLAIM_SECONDS))}) from candidate
  on conflict (submission_id, question_id) do update set marker_id = excluded.marker_id, claimed_at = excluded.claimed_at, expires_at = excluded.expires_at
    where exam_mark_claims.expires_at <= now() or exam_mark_claims.marker_id = excluded.marker_id
  returning submission_id, question_id, marker_id, expires_at,
    (select script_number from exam_submissions where id = exam_mark_claims.submission_id) as script_number`;

/**
 * POST /api/exam/batches/{batch_id}/claims: claims the named (script, question), or the next pair of
 * the caller's allocation that has no confirmed mark and no live claim of another marker, in script or
 * question order. Only shared batches have claims (409 otherwise). A pair outside the allocation is
 * 403; a pair another marker holds is 409 naming them. Claiming again one's own pair renews it.
 */
export async function claim(tx: Tx, callerId: string, input: z.input<typeof claimInput>): Promise<z.output<typeof claimReply>> {
  const { batch_id: batchId, body } = claimInput.parse(input);
  await openBatchFor(tx, callerId, batchId, "claim");
  const [shared] = await tx.select({ user_id: examBatchMarkers.user_id }).from(examBatchMarkers).where(eq(examBatchMarkers.batch_id, batchId)).limit(1);
  if (!shared) throw new AppError("conflict", "This batch has no markers: claims are for shared marking (invite markers first)");
  if (body.submission_id && body.question_id) {
    const submissionId = body.submission_id.toLowerCase();
    const questionId = body.question_id.toLowerCase();
    const [pair] = rowsOf<{ label: string; refusal: string | null }>(
      await tx.execute(sql`select q.label, app.mark_write_refusal(b.id, s.id, q.id) as refusal
        from exam_submissions s join exam_batches b on b.id = s.batch_id
        join exam_questions q on q.template_id = b.template_id and not q.is_container
        where s.batch_id = ${batchId} and s.id = ${submissionId} and q.id = ${questionId}`),
    );
    if (!pair) throw notFound("Submission or question");
    if (pair.refusal === "allocation" || pair.refusal === "not_writer") throw new AppError("forbidden", `Question ${pair.label} of this script is not in your allocation`);
    const [won] = rowsOf<ClaimRow>(
      await tx.execute(claimPair(batchId, callerId, sql`select ${submissionId}::uuid as submission_id, ${questionId}::uuid as question_id`)),
    );
    if (won) return { claim: claimFromRow(won) };
    const [holder] = rowsOf<{ full_name: string }>(
      await tx.execute(sql`select u.full_name from exam_mark_claims c join users u on u.id = c.marker_id
        where c.submission_id = ${submissionId} and c.question_id = ${questionId}`),
    );
    throw new AppError("conflict", `Question ${pair.label} of this script is being marked by ${holder?.full_name ?? "another marker"}`);
  }
  const order = body.by === "question" ? sql`question_order, label, script_number` : sql`script_number, question_order, label`;
  // A pair taken by a marker claiming at the same moment is skipped: the next one is tried.
  for (let attempt = 0; attempt < 5; attempt++) {
    const [won] = rowsOf<ClaimRow>(
      await tx.execute(
        claimPair(
          batchId,
          callerId,
          sql`select p.submission_id, p.question_id from (${myPairs(batchId)}) p
            where not exists (select 1 from exam_mark_entries m where m.submission_id = p.submission_id and m.question_id = p.question_id and m.confirmed and m.awarded_marks is not null)
              and not exists (select 1 from exam_mark_claims c where c.submission_id = p.submission_id and c.question_id = p.question_id and c.marker_id <> ${callerId} and c.expires_at > now())
            order by ${order} offset ${attempt} limit 1`,
        ),
      ),
    );
    if (won) return { claim: claimFromRow(won) };
    const [left] = rowsOf<{ n: number }>(
      await tx.execute(sql`select count(*)::int as n from (${myPairs(batchId)}) p
        where not exists (select 1 from exam_mark_entries m where m.submission_id = p.submission_id and m.question_id = p.question_id and m.confirmed and m.awarded_marks is not null)`),
    );
    if (!left || Number(left.n) <= attempt + 1) break;
  }
  return { claim: null };
}

/** DELETE /api/exam/batches/{batch_id}/claims: releases the caller's claim on a pair (the owner releases anyone's); idempotent. */
export async function releaseClaim(tx: Tx, callerId: string, input: z.input<typeof releaseInput>): Promise<{ released: boolean }> {
  const { batch_id: batchId, body } = releaseInput.parse(input);
  await openBatchFor(tx, callerId, batchId, "release_claim");
  const released = await tx
    .delete(examMarkClaims)
    .where(
      and(
        eq(examMarkClaims.batch_id, batchId),
        eq(examMarkClaims.submission_id, body.submission_id.toLowerCase()),
        eq(examMarkClaims.question_id, body.question_id.toLowerCase()),
      ),
    )
    .returning({ marker_id: examMarkClaims.marker_id });
  return { released: released.length > 0 };
}

/** GET /api/exam/batches/{batch_id}/marker-progress: per marker, their allocation and how much of it is done. */
export async function markerProgress(tx: Tx, input: z.input<typeof batchMarkersInput>): Promise<z.output<typeof progressOutput>> {
  const { batch_id: batchId } = batchMarkersInput.parse(input);
  await findVisibleBatch(tx, batchId);
  const rows = rowsOf<{ user_id: string; full_name: string; is_marker: boolean; allocated: number | null; done: number | null; marks_written: number; claims: number }>(
    await tx.execute(sql`with people as (
        select user_id, true as is_marker from exam_batch_markers where batch_id = ${batchId}
        union select marked_by_user_id, false from exam_mark_entries where batch_id = ${batchId} and marked_by_user_id is not null
          and marked_by_user_id not in (select user_id from exam_batch_markers where batch_id = ${batchId})
      ),
      pairs as (
        select a.marker_id, s.id as submission_id, q.id as question_id
        from exam_allocations a
        join exam_batches b on b.id = a.batch_id
        join exam_submissions s on s.batch_id = b.id and s.scan_url is not null
          and (a.first_script is null or s.script_number >= a.first_script) and (a.last_script is null or s.script_number <= a.last_script)
        join exam_questions q on q.template_id = b.template_id and not q.is_container and (a.question_id is null or a.question_id = q.id)
        where a.batch_id = ${batchId}
        group by a.marker_id, s.id, q.id
      )
      select p.user_id, u.full_name, p.is_marker,
        (select count(*)::int from pairs where pairs.marker_id = p.user_id) as allocated,
        (select count(*)::int from pairs join exam_mark_entries m on m.submission_id = pairs.submission_id and m.question_id = pairs.question_id
          where pairs.marker_id = p.user_id and m.confirmed and m.awarded_marks is not null) as done,
        (select count(*)::int from exam_mark_entries m where m.batch_id = ${batchId} and m.marked_by_user_id = p.user_id) as marks_written,
        (select count(*)::int from exam_mark_claims c where c.batch_id = ${batchId} and c.marker_id = p.user_id and c.expires_at > now()) as claims
      from people p join users u on u.id = p.user_id
      order by p.is_marker desc, u.full_name`),
  );
  const hasAllocation = new Set((await tx.select({ marker_id: examAllocations.marker_id }).from(examAllocations).where(eq(examAllocations.batch_id, batchId))).map((row) => row.marker_id));
  return {
    batch_id: batchId,
    shared: rows.some((row) => row.is_marker),
    markers: rows.map((row) => ({
      user_id: row.user_id,
      full_name: row.full_name,
      is_marker: Boolean(row.is_marker),
      allocated: hasAllocation.has(row.user_id) ? Number(row.allocated) : null,
      done: hasAllocation.has(row.user_id) ? Number(row.done) : null,
      marks_written: Number(row.marks_written),
      claims: Number(row.claims),
    })),
  };
}
