import { sql } from "drizzle-orm";
import { type Tx, rowsOf } from "../db/client";
import type { JobKind } from "./kind";

export interface EnqueueOptions {
  /** Jobs of one kind and key are one piece of work: while one waits, enqueueing another joins it. */
  dedupeKey: string;
  /** Earliest start; now when not given. */
  runAt?: Date;
}

/**
 * Queues a job inside `tx`, the transaction of the write that needs it: both commit or neither does.
 * Run as a user (asUser), the job is theirs to see (a template's owner sees its projection); the
 * insert itself runs with the service's rights (app.enqueue_job, server/db/sql/functions/enqueue_job.sql). Returns the job's id,
 * the waiting one's when this joined it.
 */
export async function enqueueJob<Payload>(tx: Tx, kind: Pick<JobKind<Payload>, "name" | "payload" | "maxAttempts">, payload: Payload, { dedupeKey, runAt }: EnqueueOptions): Promise<string> {
  const checked = kind.payload.parse(payload);
  const start = runAt ? sql`${runAt.toISOString()}::timestamptz` : sql`now()`;
  const [row] = rowsOf<{ id: string }>(
    await tx.execute(sql`select app.enqueue_job(${kind.name}, ${JSON.stringify(checked)}::jsonb, ${dedupeKey}, ${start}, ${kind.maxAttempts}) as id`),
  );
  if (!row) throw new Error("app.enqueue_job returned no row");
  return row.id;
}
