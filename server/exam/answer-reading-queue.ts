import { and, eq } from "drizzle-orm";
import { z } from "zod";
import type { Tx } from "../db/client";
import { examResponseAreas } from "../db/schema";
import { enqueueJob } from "../jobs/enqueue";

/**
 * Where a script's answers are queued to be read (issue 36): the reading job's name, payload and key,
 * and the one call every write that changes a script's scan makes (filing, a single upload, a page moved,
 * a scan assigned). The job itself, which reads the pages, is server/exam/answers/read-job.ts; this file
 * stands below both, so intake queues a reading without depending on the reader.
 */

export const readAnswersQueue = {
  name: "read-answer-areas",
  payload: z.object({ submission_id: z.uuid(), batch_id: z.uuid(), institute_id: z.uuid() }),
  maxAttempts: 5,
};

/** One job per script waits at a time: a second change of its scan joins the waiting one. */
const readAnswersKey = (submissionId: string) => `read-answers:${submissionId}`;

/**
 * Queues the reading of these scripts of a batch, inside the transaction that changed their scans
 * (both commit or neither does). Nothing is queued for a template without areas to read.
 */
export async function queueAnswerReading(tx: Tx, batch: { id: string; institute_id: string; template_id: string }, submissionIds: Iterable<string>): Promise<void> {
  const ids = [...new Set(submissionIds)];
  if (ids.length === 0) return;
  const [area] = await tx
    .select({ id: examResponseAreas.id })
    .from(examResponseAreas)
    .where(and(eq(examResponseAreas.template_id, batch.template_id), eq(examResponseAreas.kind, "response")))
    .limit(1);
  if (!area) return;
  for (const submissionId of ids) {
    await enqueueJob(tx, readAnswersQueue, { submission_id: submissionId, batch_id: batch.id, institute_id: batch.institute_id }, { dedupeKey: readAnswersKey(submissionId) });
  }
}
