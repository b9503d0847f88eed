import { and, eq, isNull, sql } from "drizzle-orm";
import type { z } from "zod";
import type { Tx } from "../../db/client";
import { examBatchSignOffs, examSubmissions } from "../../db/schema";
import { openBatchFor } from "../batch-gate";
import { getModeration, type moderationStateOutput } from "./state";
import { moderationBatchInput } from "./shared";

/**
 * Sign-off: a department head closes the batch to every write (what it refuses is the batch gate's,
 * batch-gate.ts, reading the batch row's signed_off flag) and reopens it; each sign-off stays as history.
 */

/** POST /api/exam/batches/{batch_id}/sign-off: a department head of the school signs the batch off (idempotent). */
export async function signOffBatch(tx: Tx, callerId: string, input: z.input<typeof moderationBatchInput>): Promise<z.output<typeof moderationStateOutput>> {
  const { batch_id: batchId } = moderationBatchInput.parse(input);
  await openBatchFor(tx, callerId, batchId, "sign_off");
  // Every write of a mark, second mark or reconciliation locks its submission first: holding all of the
  // batch's, a write either committed before (and is signed off with the batch) or waits and then sees
  // the sign-off (its next statement reads a new snapshot) and is refused.
  await tx.execute(sql`select id from ${examSubmissions} where batch_id = ${batchId} order by id for update`);
  // Two heads at once: the partial unique index keeps one current sign-off.
  await tx.insert(examBatchSignOffs).values({ batch_id: batchId, signed_off_by: callerId }).onConflictDoNothing();
  return getModeration(tx, callerId, { batch_id: batchId });
}

/** POST /api/exam/batches/{batch_id}/reopen: a department head reopens a signed-off batch (idempotent); the sign-off stays as history. */
export async function reopenBatch(tx: Tx, callerId: string, input: z.input<typeof moderationBatchInput>): Promise<z.output<typeof moderationStateOutput>> {
  const { batch_id: batchId } = moderationBatchInput.parse(input);
  await openBatchFor(tx, callerId, batchId, "reopen");
  await tx
    .update(examBatchSignOffs)
    .set({ reopened_by: callerId, reopened_at: sql`now()` })
    .where(and(eq(examBatchSignOffs.batch_id, batchId), isNull(examBatchSignOffs.reopened_at)));
  return getModeration(tx, callerId, { batch_id: batchId });
}
