import crypto from "node:crypto";
import os from "node:os";
import type { Db } from "../db/client";
import { AppError } from "../errors";
import { logger } from "../logger";
import { retryDelayMs } from "./backoff";
import { type ClaimedJob, claimDueJobs, completeJob, failJobAttempt } from "./job-table";
import type { JobKind } from "./kind";

/** A worker's name in the job table: which machine and process holds a job. */
export const newWorkerId = () => `${os.hostname()}:${process.pid}:${crypto.randomBytes(4).toString("hex")}`;

export type JobKinds = readonly JobKind<unknown>[];

/**
 * Runs one claimed job to its end: the payload is checked against its kind, the handler runs, and the
 * job is done, or it failed and waits for its next attempt (or is kept as failed). Never throws.
 */
export async function runClaimedJob(db: Db, kinds: JobKinds, job: ClaimedJob, workerId: string): Promise<void> {
  const kind = kinds.find((candidate) => candidate.name === job.kind);
  try {
    if (!kind) throw new Error(`No job kind ${job.kind} in this process`);
    const payload = kind.payload.parse(job.payload);
    await kind.run(payload, { db, jobId: job.id, attempt: job.attempts });
    if (!(await completeJob(db, job.id, workerId))) logger.warn(`Job ${job.kind} ${job.id} finished after another worker took it over`);
  } catch (error) {
    const reason = kind ? kind.describeFailure(error) : "this kind of job is unknown to the server";
    const permanent = kind?.permanentFailure(error) ?? false;
    const last = permanent || job.attempts >= job.max_attempts;
    const failed = `Job ${job.kind} ${job.id} failed (attempt ${job.attempts} of ${job.max_attempts}${permanent ? ", permanently: kept as failed" : last ? ", kept as failed" : ""})`;
    // The app's own refusal (an id another template holds) is a sentence for its owner, not a fault to
    // debug: a warning without a stack. Anything else is logged with its detail.
    if (error instanceof AppError) logger.warn(`${failed}: ${error.message}`);
    else logger.error(failed, error);
    const delay = kind ? retryDelayMs(job.attempts, kind.backoff) : 0;
    await failJobAttempt(db, job.id, workerId, reason, delay, { final: permanent }).catch((failure: unknown) =>
      logger.error(`Job ${job.id}: its failure could not be recorded; it runs again after its lease`, failure),
    );
  }
}

export interface RunDueJobsOptions {
  /** The kinds to run: the process's whole list is composed at the composition root (server/composition/job-kinds.ts). */
  kinds: JobKinds;
  workerId?: string;
  leaseSeconds?: number;
}

/**
 * Runs every job that is due now, one after another, until none is left (jobs queued meanwhile
 * included), and says how many ran. Tests and scripts use it to do now what the workers would do soon.
 */
export async function runDueJobs(db: Db, { kinds, workerId = newWorkerId(), leaseSeconds = 300 }: RunDueJobsOptions): Promise<number> {
  const names = kinds.map((kind) => kind.name);
  let ran = 0;
  for (;;) {
    const [job] = await claimDueJobs(db, { workerId, kinds: names, limit: 1, leaseSeconds });
    if (!job) return ran;
    await runClaimedJob(db, kinds, job, workerId);
    ran += 1;
  }
}
