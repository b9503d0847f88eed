import { eq } from "drizzle-orm";
import type { Tx } from "../db/client";
import { examBatches } from "../db/schema";
import { AppError } from "../errors";

/**
 * A signed-off batch is read-only until a department head reopens it (server/exam/moderation.ts): the
 * writes that change its marks or results call this after locking their submission (the sign-off locks
 * every submission of the batch before it is written, so the answer holds until the write commits).
 * Mark writes keep the same rule in their SQL (marks.ts, refusal `signed_off`).
 */
export async function refuseIfSignedOff(tx: Tx, batchId: string, refusal: string): Promise<void> {
  // The batch row's flag (kept from exam_batch_sign_offs by a trigger of 0020): the one a mark write reads.
  const [batch] = await tx.select({ signed_off: examBatches.signed_off }).from(examBatches).where(eq(examBatches.id, batchId));
  if (batch?.signed_off) throw new AppError("conflict", refusal);
}
