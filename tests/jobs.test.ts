import crypto from "node:crypto";
import { and, eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { type Database, type Db, openDatabase, rowsOf } from "../server/db/client";
import { asService, asUser } from "../server/db/rls";
import { postgresErrorCode } from "../server/postgres-errors";
import { backgroundJobs } from "../server/db/schema";
import { AppError } from "../server/errors";
import { retryDelayMs } from "../server/jobs/backoff";
import { enqueueJob } from "../server/jobs/enqueue";
import { claimDueJobs, completeJob } from "../server/jobs/job-table";
import { type JobKind, defineJobKind } from "../server/jobs/kind";
import { runDueJobs } from "../server/jobs/run";
import { startJobWorker } from "../server/jobs/worker";
import { logger } from "../server/logger";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { withDatabase, postgresAdminUrl } from "./support/postgres";

const INSUFFICIENT_PRIVILEGE = "42501";

describe("retryDelayMs", () => {
  const backoff = { baseMs: 1_000, maxMs: 30_000 };
  it("doubles per failed attempt, up to the cap, with half of it random", () => {
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, backoff, () => 1))).toEqual([1_000, 2_000, 4_000, 8_000]);
    expect([1, 2, 3, 4].map((attempt) => retryDelayMs(attempt, backoff, () => 0))).toEqual([500, 1_000, 2_000, 4_000]);
    expect(retryDelayMs(20, backoff, () => 1)).toBe(30_000);
    expect(retryDelayMs(20, backoff, () => 0)).toBe(15_000);
  });
});

describeOnEachDatabase("durable background jobs", (database) => {
  const db = () => database().db;
  let school: School;
  /** Every run of a test kind, by job id. */
  const runs = new Map<string, number>();
  let nextKey = 0;
  const key = () => `key-${nextKey++}`;

  /** A job kind that counts its runs; `fail` makes a run throw. */
  function countingKind(name: string, options: { fail?: (attempt: number) => Error | null; maxAttempts?: number; baseMs?: number } = {}) {
    return defineJobKind({
      name,
      payload: z.object({ n: z.number().int() }),
      async run(_payload, { jobId, attempt }) {
        runs.set(jobId, (runs.get(jobId) ?? 0) + 1);
        // Yield, so that concurrent workers interleave their statements.
        await new Promise((resolve) => setImmediate(resolve));
        const failure = options.fail?.(attempt);
        if (failure) throw failure;
      },
      maxAttempts: options.maxAttempts ?? 3,
      backoff: { baseMs: options.baseMs ?? 0, maxMs: options.baseMs ?? 0 },
    });
  }

  const jobsOf = (kind: JobKind<never> | JobKind<{ n: number }>) => db().select().from(backgroundJobs).where(eq(backgroundJobs.kind, kind.name));
  const enqueueAsService = (kind: JobKind<{ n: number }>, n: number, dedupeKey = key()) =>
    asService(db(), (tx) => enqueueJob(tx, kind, { n }, { dedupeKey }));

  beforeAll(async () => {
    school = await createSchool(db(), "Jobs");
  });

  it("commits a job with the write that queued it, and a rolled-back write queues nothing", async () => {
    const kind = countingKind("test.with-the-write");
    await expect(
      asUser(db(), school.teacher.id, async (tx) => {
        await enqueueJob(tx, kind, { n: 1 }, { dedupeKey: key() });
        throw new AppError("conflict", "the save failed after queueing");
      }),
    ).rejects.toThrow("the save failed");
    expect(await jobsOf(kind)).toEqual([]);

    const id = await asUser(db(), school.teacher.id, (tx) => enqueueJob(tx, kind, { n: 2 }, { dedupeKey: key() }));
    const [job] = await jobsOf(kind);
    expect(job).toMatchObject({ id, state: "queued", payload: { n: 2 }, owner_id: school.teacher.id, attempts: 0, max_attempts: 3 });
    expect(await runDueJobs(db(), { kinds: [kind] })).toBe(1);
    expect((await jobsOf(kind))[0]).toMatchObject({ state: "done", attempts: 1, locked_by: null });
  });

  it("checks the payload against its kind when queueing", async () => {
    const kind = countingKind("test.payload");
    await expect(asService(db(), (tx) => enqueueJob(tx, kind, { n: "one" as unknown as number }, { dedupeKey: key() }))).rejects.toThrow();
    expect(await jobsOf(kind)).toEqual([]);
  });

  it("keeps one waiting job per kind and key: a second enqueue joins it, with the newer payload", async () => {
    const kind = countingKind("test.dedupe");
    const dedupeKey = key();
    const later = new Date(Date.now() + 3_600_000);
    const first = await asService(db(), (tx) => enqueueJob(tx, kind, { n: 1 }, { dedupeKey, runAt: later }));
    const second = await asService(db(), (tx) => enqueueJob(tx, kind, { n: 2 }, { dedupeKey }));
    expect(second).toBe(first);
    const [job, ...others] = await jobsOf(kind);
    expect(others).toEqual([]);
    // The earlier start wins: the second enqueue wanted it now.
    expect(job).toMatchObject({ payload: { n: 2 }, state: "queued" });
    expect(job!.run_at.getTime()).toBeLessThan(later.getTime());

    // While it runs, a new enqueue is a new job, which waits until the running one has finished.
    const [claimed] = await claimDueJobs(db(), { workerId: "slow-worker", kinds: [kind.name], limit: 5, leaseSeconds: 300 });
    expect(claimed!.id).toBe(first);
    const third = await asService(db(), (tx) => enqueueJob(tx, kind, { n: 3 }, { dedupeKey }));
    expect(third).not.toBe(first);
    expect(await runDueJobs(db(), { kinds: [kind] })).toBe(0);
    expect(await completeJob(db(), first, "slow-worker")).toBe(true);
    expect(await runDueJobs(db(), { kinds: [kind] })).toBe(1);
    expect(runs.get(third)).toBe(1);
  });

  it("never runs one job twice when two workers on two database handles claim at once", async () => {
    const kind = countingKind("test.many");
    // PostgreSQL: a second connection pool to the same database. PGlite is one connection in this
    // process: the second worker shares it, and the claims interleave statement by statement.
    let second: Database | null = null;
    if (database().kind === "postgres") {
      const [row] = rowsOf<{ name: string }>(await db().execute(sql`select current_database() as name`));
      second = await openDatabase({ kind: "postgres", url: withDatabase(postgresAdminUrl()!, row!.name), poolMax: 4 });
    }
    const other: Db = second?.db ?? db();
    try {
      const ids: string[] = [];
      for (let n = 0; n < 60; n += 1) ids.push(await enqueueAsService(kind, n));
      const ran = await Promise.all([
        runDueJobs(db(), { kinds: [kind] }),
        runDueJobs(other, { kinds: [kind] }),
        runDueJobs(db(), { kinds: [kind] }),
        runDueJobs(other, { kinds: [kind] }),
      ]);
      expect(ran.reduce((sum, count) => sum + count, 0)).toBe(60);
      expect(ids.map((id) => runs.get(id))).toEqual(ids.map(() => 1));
      expect((await jobsOf(kind)).every((job) => job.state === "done" && job.attempts === 1)).toBe(true);
    } finally {
      await second?.close();
    }
  });

  it("runs a job again on another worker once the lease of the worker that claimed it has run out", async () => {
    const kind = countingKind("test.lease");
    const id = await enqueueAsService(kind, 1);
    // A worker claims it and is killed: it never finishes. While its lease lasts nobody else runs it.
    await claimDueJobs(db(), { workerId: "killed-worker", kinds: [kind.name], limit: 1, leaseSeconds: 300 });
    expect(await runDueJobs(db(), { kinds: [kind] })).toBe(0);
    // Time passes beyond its lease.
    await db().update(backgroundJobs).set({ locked_until: sql`now()` }).where(eq(backgroundJobs.id, id));
    expect(await runDueJobs(db(), { kinds: [kind], workerId: "survivor" })).toBe(1);
    expect(runs.get(id)).toBe(1);
    expect((await jobsOf(kind))[0]).toMatchObject({ state: "done", attempts: 2 });
    // The killed worker, were it to come back, changes nothing.
    expect(await completeJob(db(), id, "killed-worker")).toBe(false);
  });

  it("retries a failing job with backoff, then keeps it as failed with its last error", async () => {
    const logged = vi.spyOn(logger, "error").mockImplementation(() => {});
    const warned = vi.spyOn(logger, "warn").mockImplementation(() => {});
    try {
      const failing = countingKind("test.failing", {
        maxAttempts: 3,
        fail: (attempt) => new AppError("conflict", `Question 4 is part of another template (attempt ${attempt})`),
      });
      const id = await enqueueAsService(failing, 1);
      // No backoff for this kind: each retry is due at once, so one call runs them all.
      expect(await runDueJobs(db(), { kinds: [failing] })).toBe(3);
      expect(runs.get(id)).toBe(3);
      const [job] = await jobsOf(failing);
      expect(job).toMatchObject({ state: "failed", attempts: 3, last_error: "Question 4 is part of another template (attempt 3)", locked_by: null });
      expect(job!.finished_at).not.toBeNull();
      expect(await runDueJobs(db(), { kinds: [failing] })).toBe(0);
      // The app's refusals are warnings that carry their sentence, without a stack.
      expect(warned.mock.calls.map(([line]) => line)).toEqual([1, 2, 3].map((attempt) =>
        expect.stringMatching(new RegExp(`test\\.failing .* failed \\(attempt ${attempt} of 3${attempt === 3 ? ", kept as failed" : ""}\\): Question 4 is part of another template \\(attempt ${attempt}\\)$`)),
      ));
      expect(logged).not.toHaveBeenCalled();

      // With backoff, the next attempt waits; an unexpected error is kept in words, its detail logged.
      const slow = countingKind("test.backoff", { maxAttempts: 5, baseMs: 60_000, fail: () => new Error("ECONNREFUSED 10.0.0.7:7687") });
      const slowId = await enqueueAsService(slow, 1);
      const [before] = rowsOf<{ now: string }>(await db().execute(sql`select now()::text as now`));
      expect(await runDueJobs(db(), { kinds: [slow] })).toBe(1);
      const [waiting] = await jobsOf(slow);
      expect(waiting).toMatchObject({ state: "queued", attempts: 1, last_error: "an unexpected error on the server (its log has the details)" });
      // Half of 60 s fixed, half random.
      expect(waiting!.run_at.getTime() - Date.parse(before!.now)).toBeGreaterThanOrEqual(30_000);
      expect(await runDueJobs(db(), { kinds: [slow] })).toBe(0);
      expect(runs.get(slowId)).toBe(1);
      expect(logged.mock.calls.some(([, detail]) => String((detail as Error)?.message).includes("ECONNREFUSED"))).toBe(true);
    } finally {
      logged.mockRestore();
      warned.mockRestore();
    }
  });

  it("keeps a job whose failure is permanent as failed after its first run, and retries a transient one", async () => {
    const kind = defineJobKind({
      name: "test.permanent",
      payload: z.object({ n: z.number().int() }),
      async run({ n }) {
        throw n === 1 ? new AppError("invalid", "This PDF is damaged: its list of pages loops back on itself.") : new Error("the database went away");
      },
      maxAttempts: 5,
      backoff: { baseMs: 0, maxMs: 0 },
      permanentFailure: (error) => error instanceof AppError && error.code === "invalid",
    });
    const refused = await asService(db(), (tx) => enqueueJob(tx, kind, { n: 1 }, { dedupeKey: key() }));
    const transient = await asService(db(), (tx) => enqueueJob(tx, kind, { n: 2 }, { dedupeKey: key() }));
    const warn = vi.spyOn(logger, "warn").mockImplementation(() => undefined);
    const error = vi.spyOn(logger, "error").mockImplementation(() => undefined);
    try {
      // The transient one comes back at once (no backoff here) until its attempts are used up.
      expect(await runDueJobs(db(), { kinds: [kind] })).toBe(6);
    } finally {
      warn.mockRestore();
      error.mockRestore();
    }
    const byId = new Map((await jobsOf(kind as unknown as JobKind<{ n: number }>)).map((job) => [job.id, job]));
    expect(byId.get(refused)).toMatchObject({ state: "failed", attempts: 1, last_error: "This PDF is damaged: its list of pages loops back on itself." });
    expect(byId.get(transient)).toMatchObject({ state: "failed", attempts: 5 });
  });

  describe("sharing the slots between schools", () => {
    const fairKind = defineJobKind({ name: "test.fair", payload: z.object({ n: z.number().int(), institute_id: z.uuid() }), async run() {} });
    const enqueueFor = (instituteId: string, n: number) => asService(db(), (tx) => enqueueJob(tx, fairKind, { n, institute_id: instituteId }, { dedupeKey: key() }));
    const claimOne = async (workerId: string) => {
      const [job] = await claimDueJobs(db(), { workerId, kinds: [fairKind.name], limit: 1, leaseSeconds: 300 });
      return job ? (job.payload as { n: number }).n : null;
    };

    it("takes each school's oldest job before any school's second, oldest first within a school", async () => {
      const [a, b, c] = [crypto.randomUUID(), crypto.randomUUID(), crypto.randomUUID()];
      for (const [institute, n] of [[a, 1], [a, 2], [a, 3], [b, 4], [a, 5], [c, 6], [b, 7]] as const) await enqueueFor(institute, n);
      const order: Array<number | null> = [];
      for (let claim = 0; claim < 8; claim++) {
        const [job] = await claimDueJobs(db(), { workerId: "one-slot", kinds: [fairKind.name], limit: 1, leaseSeconds: 300 });
        if (job) await completeJob(db(), job.id, "one-slot");
        order.push(job ? (job.payload as { n: number }).n : null);
      }
      // Turn 1: a's, b's and c's oldest (oldest first); turn 2: a's and b's second; then a's last two.
      expect(order).toEqual([1, 4, 6, 2, 7, 3, 5, null]);
    });

    it("gives a free slot to a school running nothing before one already running a job, even if its job is younger", async () => {
      const [a, b] = [crypto.randomUUID(), crypto.randomUUID()];
      await enqueueFor(a, 1);
      await enqueueFor(a, 2);
      await enqueueFor(b, 3);
      expect(await claimOne("slot-1")).toBe(1);
      // a's first job still runs: b's goes before a's older second one.
      expect(await claimOne("slot-2")).toBe(3);
      expect(await claimOne("slot-3")).toBe(2);
    });
  });

  it("a job whose worker died during its last attempt is kept as failed, not claimed again", async () => {
    const { tidyJobs } = await import("../server/jobs/job-table");
    const kind = countingKind("test.last-attempt", { maxAttempts: 1 });
    const id = await enqueueAsService(kind, 1);
    await claimDueJobs(db(), { workerId: "killed-worker", kinds: [kind.name], limit: 1, leaseSeconds: 0 });
    expect(await runDueJobs(db(), { kinds: [kind] })).toBe(0);
    await tidyJobs(db());
    expect((await jobsOf(kind))[0]).toMatchObject({ id, state: "failed", last_error: "the server stopped while running it, and no attempts were left" });
  });

  it("a worker runs what is queued, and on stop gives back a job it could not finish", async () => {
    const quick = countingKind("test.worker");
    let release!: () => void;
    const stuck = defineJobKind({
      name: "test.stuck",
      payload: z.object({ n: z.number() }),
      run: () => new Promise<void>((resolve) => (release = resolve)),
    });
    const ids = [await enqueueAsService(quick, 1), await enqueueAsService(quick, 2)];
    const worker = startJobWorker(db(), { kinds: [quick, stuck], concurrency: 2, pollMs: 20, leaseSeconds: 300 });
    try {
      await vi.waitFor(async () => expect((await jobsOf(quick)).map((job) => job.state)).toEqual(["done", "done"]), { timeout: 30_000, interval: 25 });
      expect(ids.map((id) => runs.get(id))).toEqual([1, 1]);
      const stuckId = await asService(db(), (tx) => enqueueJob(tx, stuck, { n: 1 }, { dedupeKey: key() }));
      await vi.waitFor(async () => expect((await jobsOf(stuck))[0]?.state).toBe("running"), { timeout: 30_000, interval: 25 });
      await worker.stop(0);
      // Given back: claimable at once by another worker, and the interrupted run is not counted.
      const [job] = await jobsOf(stuck);
      expect(job).toMatchObject({ id: stuckId, attempts: 0, locked_by: worker.workerId });
      const [taken] = await claimDueJobs(db(), { workerId: "next-node", kinds: [stuck.name], limit: 1, leaseSeconds: 300 });
      expect(taken?.id).toBe(stuckId);
    } finally {
      release?.();
      await worker.stop(0);
    }
  });

  it("a web-only process (concurrency 0) claims nothing", async () => {
    const kind = countingKind("test.web-only");
    await enqueueAsService(kind, 1);
    const worker = startJobWorker(db(), { kinds: [kind], concurrency: 0, pollMs: 20, leaseSeconds: 300 });
    await worker.stop(0);
    expect((await jobsOf(kind))[0]).toMatchObject({ state: "queued", attempts: 0 });
  });

  it("app users cannot write the job table, and read only the jobs queued for them", async () => {
    const kind = countingKind("test.rls");
    await asUser(db(), school.teacher.id, (tx) => enqueueJob(tx, kind, { n: 1 }, { dedupeKey: key() }));
    await enqueueAsService(kind, 2);
    const seen = (userId: string) =>
      asUser(db(), userId, (tx) => tx.select({ owner: backgroundJobs.owner_id }).from(backgroundJobs).where(eq(backgroundJobs.kind, kind.name)));
    expect(await seen(school.teacher.id)).toEqual([{ owner: school.teacher.id }]);
    expect(await seen(school.otherTeacher.id)).toEqual([]);
    const refused = await asUser(db(), school.teacher.id, (tx) =>
      tx.update(backgroundJobs).set({ state: "done" }).where(and(eq(backgroundJobs.kind, kind.name), eq(backgroundJobs.owner_id, school.teacher.id))),
    ).catch((error: unknown) => error);
    expect(postgresErrorCode(refused)).toBe(INSUFFICIENT_PRIVILEGE);
  });
});
