import type { Db } from "../db/client";
import { logger } from "../logger";
import { type ClaimedJob, claimDueJobs, extendLeases, releaseJob, tidyJobs } from "./job-table";
import { type JobKinds, newWorkerId, runClaimedJob } from "./run";

export interface JobWorkerOptions {
  kinds: JobKinds;
  /** Jobs run at once; 0 starts no worker. */
  concurrency: number;
  pollMs: number;
  leaseSeconds: number;
  workerId?: string;
}

export interface JobWorker {
  workerId: string;
  /**
   * Stops claiming, waits up to `graceMs` for the jobs running here, and gives the others back (their
   * leases end now, so another process takes them over at once).
   */
  stop(graceMs: number): Promise<void>;
}

/** Tidying (old done jobs, dead workers' last attempts) happens about this often per process. */
const TIDY_EVERY_MS = 10 * 60_000;

/**
 * The background worker of one process: polls the job table every `pollMs` while it has a free slot,
 * runs up to `concurrency` jobs at once, and extends the leases of its running jobs so that only a dead
 * process's jobs are taken over.
 */
export function startJobWorker(db: Db, { kinds, concurrency, pollMs, leaseSeconds, workerId = newWorkerId() }: JobWorkerOptions): JobWorker {
  const running = new Map<string, Promise<void>>();
  const names = kinds.map((kind) => kind.name);
  let stopped = concurrency < 1;
  let lastTidy = 0;
  let pollTimer: NodeJS.Timeout | undefined;
  let polling: Promise<void> = Promise.resolve();

  const start = (job: ClaimedJob) => {
    const run = runClaimedJob(db, kinds, job, workerId).finally(() => {
      running.delete(job.id);
      if (!stopped) schedulePoll(0); // a slot is free: look for the next job now
    });
    running.set(job.id, run);
  };

  const poll = async () => {
    if (stopped) return;
    try {
      if (Date.now() - lastTidy > TIDY_EVERY_MS) {
        lastTidy = Date.now();
        await tidyJobs(db);
      }
      const free = concurrency - running.size;
      if (free > 0) for (const job of await claimDueJobs(db, { workerId, kinds: names, limit: free, leaseSeconds })) start(job);
    } catch (error) {
      logger.warn("The job worker could not read the job table; it tries again", error);
    }
    schedulePoll(pollMs);
  };

  function schedulePoll(delayMs: number) {
    if (stopped) return;
    clearTimeout(pollTimer);
    pollTimer = setTimeout(() => {
      polling = polling.then(poll);
    }, delayMs);
    pollTimer.unref();
  }

  // Renewed three times per lease: a busy event loop or a slow statement never lets a live job's lease lapse.
  const renewal = setInterval(() => {
    extendLeases(db, [...running.keys()], workerId, leaseSeconds).catch((error: unknown) =>
      logger.warn("The job worker could not extend its leases", error),
    );
  }, (leaseSeconds * 1000) / 3);
  renewal.unref();

  if (!stopped) {
    logger.info(`Background jobs: this process runs up to ${concurrency} at once (worker ${workerId})`);
    schedulePoll(0);
  } else {
    clearInterval(renewal);
  }

  return {
    workerId,
    async stop(graceMs) {
      stopped = true;
      clearTimeout(pollTimer);
      await polling;
      const unfinished = [...running.keys()];
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.all(running.values()),
        new Promise((resolve) => {
          timer = setTimeout(resolve, graceMs);
        }),
      ]);
      clearTimeout(timer);
      clearInterval(renewal);
      const left = unfinished.filter((id) => running.has(id));
      await Promise.all(
        left.map((id) => releaseJob(db, id, workerId).catch((error: unknown) => logger.warn(`Job ${id} could not be given back; it runs again after its lease`, error))),
      );
    },
  };
}
