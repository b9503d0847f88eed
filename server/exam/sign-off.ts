import { sql } from "drizzle-orm";
import { type Tx, rowsOf } from "../db/client";
import { examBatchSignOffs } from "../db/schema";
import { AppError } from "../errors";

/**
 * A signed-off batch is read-only until a department head reopens it (server/exam/moderation.ts): the
 * writes that change its marks or results call this after locking their submission (the sign-off locks
 * every submission of the batch before it is written, so the answer holds until the write commits).
 * Mark writes keep the same rule in their SQL (marks.ts, refusal `signed_off`).
 */
export async function refuseIfSignedOff(tx: Tx, batchId: string, refusal: string): Promise<void> {
  const [row] = rowsOf<{ id: string }>(await tx.execute(sql`select id from ${examBatchSignOffs} where batch_id = ${batchId} and reopened_at is null`));
  if (row) throw new AppError("conflict", refusal);
}
