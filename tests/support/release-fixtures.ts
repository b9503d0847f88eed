import { and, eq, inArray, isNotNull } from "drizzle-orm";
import type { Db } from "../../server/db/client";
import { asService } from "../../server/db/rls";
import { examBatches, examSubmissions } from "../../server/db/schema";

/**
 * Releases a batch's scripts to their students by writing the release columns as the database owner:
 * for tests of what a release lets students do, apart from the release itself (exam.release.release).
 * Every script with a student, or only `submissionIds`; reviews open until `reviewsUntil` (null: none).
 */
export async function releaseForTest(db: Db, batchId: string, { reviewsUntil = null, submissionIds }: { reviewsUntil?: Date | null; submissionIds?: string[] } = {}) {
  await asService(db, async (tx) => {
    await tx.update(examBatches).set({ released_at: new Date(), release_scope: "all", reviews_until: reviewsUntil }).where(eq(examBatches.id, batchId));
    await tx
      .update(examSubmissions)
      .set({ released_at: new Date() })
      .where(and(eq(examSubmissions.batch_id, batchId), isNotNull(examSubmissions.student_id), submissionIds ? inArray(examSubmissions.id, submissionIds) : undefined));
  });
}
