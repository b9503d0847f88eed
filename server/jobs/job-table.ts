import { and, asc, eq, inArray, lt, lte, or, sql } from "drizzle-orm";
import type { Db } from "../db/client";
import { violatedUniqueConstraint } from "../postgres-errors";
import { backgroundJobs } from "../db/schema";

/**
 * The state changes of the job table, each one statement: claim under a lease, finish, fail (retry
 * later or keep as failed), give a lease back, extend leases, tidy up. Every change to a running job
 * names the worker holding it: a worker whose lease ran out (and whose job another worker took over)
 * changes nothing.
 */

export type ClaimedJob = typeof backgroundJobs.$inferSelect;

const leaseEnd = (seconds: number) => sql`now() + make_interval(secs => ${seconds})`;

export interface ClaimOptions {
  workerId: string;
  kinds: string[];
  limit: number;
  leaseSeconds: number;
}

/**
 * Whose turn a job is: the school in its payload (`institute_id`, as a pile's job carries it), else the
 * person who queued it, else the job alone. `job` is the alias of the row.
 */
const fairnessGroup = (job: string) => sql.raw(`coalesce(${job}.payload->>'institute_id', ${job}.owner_id::text, ${job}.id::text)`);

/** Jobs of this job's group running now under a live lease. */
const runningInGroup = sql`(select count(*) from background_jobs as busy where busy.state = 'running' and busy.locked_until > now()
  and ${fairnessGroup("busy")} = ${fairnessGroup("background_jobs")})`;

/** When this job's group was last given a slot (a job of it claimed or finished): null when never (in the 24 hours jobs are kept). */
const lastServedGroup = sql`(select max(served.updated_at) from background_jobs as served where served.state in ('running', 'done', 'failed')
  and ${fairnessGroup("served")} = ${fairnessGroup("background_jobs")})`;

/**
 * Claims up to `limit` due jobs of `kinds`, shared fairly between schools: queued ones whose time has
 * come, and running ones whose lease has run out (their worker died). The school (fairnessGroup) running
 * the fewest jobs goes first, then the one served least recently, then the oldest job: a school already
 * running a job waits behind one that runs none, schools take turns (each one's oldest job before any
 * school's next), and within a school jobs run oldest first. A queued job waits while another job of its kind
 * and key runs, so one piece of work never runs twice at once; the unique index on running jobs
 * (drizzle/0009) backs that up against two claims racing, and the loser claims nothing this time.
 */
export async function claimDueJobs(db: Db, { workerId, kinds, limit, leaseSeconds }: ClaimOptions): Promise<ClaimedJob[]> {
  if (kinds.length === 0 || limit < 1) return [];
  const due = db
    .select({ id: backgroundJobs.id })
    .from(backgroundJobs)
    .where(
      and(
        inArray(backgroundJobs.kind, kinds),
        lt(backgroundJobs.attempts, backgroundJobs.max_attempts),
        or(
          and(
            eq(backgroundJobs.state, "queued"),
            lte(backgroundJobs.run_at, sql`now()`),
            sql`not exists (select 1 from background_jobs as running where running.kind = ${backgroundJobs.kind}
              and running.dedupe_key = ${backgroundJobs.dedupe_key} and running.state = 'running')`,
          ),
          and(eq(backgroundJobs.state, "running"), lte(backgroundJobs.locked_until, sql`now()`)),
        ),
      ),
    )
    .orderBy(runningInGroup, sql`${lastServedGroup} asc nulls first`, asc(backgroundJobs.run_at), asc(backgroundJobs.created_at))
    .limit(limit)
    .for("update", { skipLocked: true });
  try {
    return await db
      .update(backgroundJobs)
      .set({
        state: "running",
        attempts: sql`${backgroundJobs.attempts} + 1`,
        locked_by: workerId,
        locked_until: leaseEnd(leaseSeconds),
        updated_at: sql`now()`,
      })
      .where(inArray(backgroundJobs.id, due))
      .returning();
  } catch (error) {
    if (violatedUniqueConstraint(error) !== null) return [];
    throw error;
  }
}

const heldBy = (jobId: string, workerId: string) =>
  and(eq(backgroundJobs.id, jobId), eq(backgroundJobs.state, "running"), eq(backgroundJobs.locked_by, workerId));

/** The job ran to the end. False when the worker no longer held it. */
export async function completeJob(db: Db, jobId: string, workerId: string): Promise<boolean> {
  const rows = await db
    .update(backgroundJobs)
    .set({ state: "done", locked_by: null, locked_until: null, finished_at: sql`now()`, updated_at: sql`now()` })
    .where(heldBy(jobId, workerId))
    .returning({ id: backgroundJobs.id });
  return rows.length > 0;
}

/**
 * A run failed: the job waits `retryDelayMs` and is queued again, or, with its attempts used up or
 * when the failure is `final` (permanent: running again cannot help), is kept as failed. Either way `reason` stays on it. When a newer job of the same kind and key is already
 * waiting, that one does the work: this one is kept as failed.
 */
export async function failJobAttempt(db: Db, jobId: string, workerId: string, reason: string, retryDelayMs: number, { final = false } = {}): Promise<void> {
  const retry = final
    ? { state: sql`'failed'`, finished_at: sql`now()` }
    : {
        state: sql`case when ${backgroundJobs.attempts} >= ${backgroundJobs.max_attempts} then 'failed' else 'queued' end`,
        run_at: sql`now() + make_interval(secs => ${retryDelayMs / 1000})`,
        finished_at: sql`case when ${backgroundJobs.attempts} >= ${backgroundJobs.max_attempts} then now() end`,
      };
  const common = { last_error: reason, locked_by: null, locked_until: null, updated_at: sql`now()` };
  try {
    await db.update(backgroundJobs).set({ ...retry, ...common }).where(heldBy(jobId, workerId));
  } catch (error) {
    if (violatedUniqueConstraint(error) === null) throw error;
    await db.update(backgroundJobs).set({ ...common, state: "failed", finished_at: sql`now()` }).where(heldBy(jobId, workerId));
  }
}

/**
 * Gives a job back unfinished (the process is stopping): its lease ends now, so any worker takes it
 * over at once, and this run does not count as an attempt.
 */
export async function releaseJob(db: Db, jobId: string, workerId: string): Promise<void> {
  await db
    .update(backgroundJobs)
    .set({ locked_until: sql`now()`, attempts: sql`greatest(${backgroundJobs.attempts} - 1, 0)`, updated_at: sql`now()` })
    .where(heldBy(jobId, workerId));
}

/** Keeps the leases of jobs still running here from running out. */
export async function extendLeases(db: Db, jobIds: string[], workerId: string, leaseSeconds: number): Promise<void> {
  if (jobIds.length === 0) return;
  await db
    .update(backgroundJobs)
    .set({ locked_until: leaseEnd(leaseSeconds) })
    .where(and(inArray(backgroundJobs.id, jobIds), eq(backgroundJobs.state, "running"), eq(backgroundJobs.locked_by, workerId)));
}

/** How long finished jobs stay readable (a template's status reads its latest) before they are deleted. */
const DONE_JOBS_KEPT_HOURS = 24;

/**
 * Deletes done jobs older than DONE_JOBS_KEPT_HOURS, and keeps as failed a job whose worker died
 * during its last attempt (nobody may claim it again). Failed jobs stay for their owners and operators.
 */
export async function tidyJobs(db: Db): Promise<void> {
  await db
    .delete(backgroundJobs)
    .where(and(eq(backgroundJobs.state, "done"), lt(backgroundJobs.finished_at, sql`now() - make_interval(hours => ${DONE_JOBS_KEPT_HOURS})`)));
  await db
    .update(backgroundJobs)
    .set({
      state: "failed",
      last_error: "the server stopped while running it, and no attempts were left",
      locked_by: null,
      locked_until: null,
      finished_at: sql`now()`,
      updated_at: sql`now()`,
    })
    .where(
      and(
        eq(backgroundJobs.state, "running"),
        lte(backgroundJobs.locked_until, sql`now()`),
        sql`${backgroundJobs.attempts} >= ${backgroundJobs.max_attempts}`,
      ),
    );
}
