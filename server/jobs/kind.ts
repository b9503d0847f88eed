import type { z } from "zod";
import type { Db } from "../db/client";
import { AppError } from "../errors";

/** How long a failed job waits before its next attempt: doubling from baseMs, at most maxMs. */
export interface Backoff {
  baseMs: number;
  maxMs: number;
}

interface JobContext {
  /** The process's database: a handler opens its own transactions (asService or asUser). */
  db: Db;
  jobId: string;
  /** 1 on the first run. */
  attempt: number;
}

/** A kind of background job: its name in the table, what its payload must be, and what running it does. */
export interface JobKind<Payload = unknown> {
  name: string;
  payload: z.ZodType<Payload>;
  run(payload: Payload, context: JobContext): Promise<void>;
  /** Runs before the job is kept as failed. */
  maxAttempts: number;
  backoff: Backoff;
  /** The reason the job's owner reads when a run fails: words a teacher understands, never a stack. */
  describeFailure(error: unknown): string;
  /**
   * Whether a run's error can never go away by running again (the input itself is refused, as a damaged
   * file): the job is then kept as failed at once, without its other attempts. Anything else (the
   * database or storage away, a worker restarting) is transient and retried. None by default.
   */
  permanentFailure(error: unknown): boolean;
}

const defaultBackoff: Backoff = { baseMs: 30_000, maxMs: 60 * 60_000 };

/** An error thrown by the app itself says what went wrong; anything else is detail for the log only. */
const describeFailureByDefault = (error: unknown) =>
  error instanceof AppError ? error.message : "an unexpected error on the server (its log has the details)";

export function defineJobKind<Payload>(
  kind: Pick<JobKind<Payload>, "name" | "payload" | "run"> & Partial<Pick<JobKind<Payload>, "maxAttempts" | "backoff" | "describeFailure" | "permanentFailure">>,
): JobKind<Payload> {
  return { maxAttempts: 8, backoff: defaultBackoff, describeFailure: describeFailureByDefault, permanentFailure: () => false, ...kind };
}
