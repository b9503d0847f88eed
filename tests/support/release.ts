import { and, eq, inArray, isNotNull } from "drizzle-orm";
import type { Db } from "../../server/db/client";
import { asService } from "../../server/db/rls";
import { examBatches, examSubmissions } from "../../server/db/schema";

/**
 * Releases a batch's results to its students by setting the columns as the database owner:
 * exam_batches.released_at and release_scope 'all', and exam_submissions.released_at on every script
 * with a student (or on `submissionIds` only). It stands for exam.release.release (the release slice,
 * server/exam/returns/release.ts) until that lands; then the tests call the operation instead.
 */
export async function releaseForTest(db: Db, batchId: string, options: { submissionIds?: string[]; reviewsUntil?: Date | null } = {}) {
  const now = new Date();
  await asService(db, async (tx) => {
    await tx.update(examBatches).set({ released_at: now, release_scope: "all", reviews_until: options.reviewsUntil ?? null }).where(eq(examBatches.id, batchId));
    const scripts = and(eq(examSubmissions.batch_id, batchId), isNotNull(examSubmissions.student_id));
    await tx
      .update(examSubmissions)
      .set({ released_at: now })
      .where(options.submissionIds ? and(scripts, inArray(examSubmissions.id, options.submissionIds)) : scripts);
  });
}

/** Withdraws a release as exam.release.withdraw will: the batch's and every script's released_at cleared. */
export async function withdrawForTest(db: Db, batchId: string) {
  await asService(db, async (tx) => {
    await tx.update(examBatches).set({ released_at: null, release_scope: null, reviews_until: null }).where(eq(examBatches.id, batchId));
    await tx.update(examSubmissions).set({ released_at: null }).where(eq(examSubmissions.batch_id, batchId));
  });
}
