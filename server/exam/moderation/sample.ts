import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import { type Tx, rowsOf } from "../../db/client";
import { examModerationSamples, examModerationScripts, examSubmissions } from "../../db/schema";
import { AppError } from "../../errors";
import { integer } from "../../../lib/rules/input-rules";
import { openBatchFor } from "../batch-gate";
import { getModeration, type moderationStateOutput } from "./state";
import { DEFAULT_TOLERANCE, marks, moderationBatchInput, moderatorBatch, toleranceOf } from "./shared";

/** The moderation sample: the scripts a moderator chooses to be second-marked, and the tolerance. */

const setSampleBody = z
  .object({
    percent: integer({ min: 1, max: 100 }).optional().describe("A reproducible random pick of this share of the scripts that have marks"),
    submission_ids: z.array(z.uuid("submission_ids: must be submission ids")).min(1).max(2000).optional().describe("Or the scripts chosen one by one"),
    tolerance: marks().optional().describe(`Differences of at most this many marks count as agreement (default ${DEFAULT_TOLERANCE})`),
  })
  .refine((body) => (body.percent === undefined) !== (body.submission_ids === undefined), {
    message: "give either percent or submission_ids",
    path: ["percent"],
  });
export const setSampleInput = moderationBatchInput.extend({ body: setSampleBody });

/**
 * PUT /api/exam/batches/{batch_id}/moderation/sample: a moderator sets the sample, replacing the last.
 * A percentage picks ceil(percent × scripts with a mark / 100) of the scripts that have a mark with a
 * value, ordered by md5(batch id ":" submission id): the same batch gives the same pick, and no one
 * chooses which scripts. Chosen scripts must be the batch's and have a mark (400 naming submission_ids).
 * Second marks already given stay (and still count) when their script leaves the sample.
 */
export async function setModerationSample(tx: Tx, callerId: string, input: z.input<typeof setSampleInput>): Promise<z.output<typeof moderationStateOutput>> {
  const { batch_id: batchId, body } = setSampleInput.parse(input);
  const batch = await moderatorBatch(tx, callerId, batchId);
  await openBatchFor(tx, callerId, batch, "set_sample");
  const marked = rowsOf<{ id: string }>(
    await tx.execute(sql`select s.id from ${examSubmissions} s
      where s.batch_id = ${batchId} and exists (select 1 from exam_mark_entries m where m.submission_id = s.id and m.awarded_marks is not null)
      order by md5(${batchId}::text || ':' || s.id::text)`),
  ).map((row) => row.id);
  let chosen: string[];
  if (body.percent !== undefined) {
    if (marked.length === 0) throw new AppError("conflict", "No script of the batch has a mark yet: there is nothing to moderate");
    chosen = marked.slice(0, Math.ceil((body.percent * marked.length) / 100));
  } else {
    chosen = [...new Set(body.submission_ids!.map((id) => id.toLowerCase()))];
    const markedSet = new Set(marked);
    if (chosen.some((id) => !markedSet.has(id))) {
      throw new AppError("invalid", "submission_ids: every script chosen must be one of this batch's scripts with a mark", "submission_ids");
    }
  }
  const [previous] = await tx.select().from(examModerationSamples).where(eq(examModerationSamples.batch_id, batchId));
  const tolerance = (body.tolerance ?? toleranceOf(previous)).toFixed(2);
  await tx
    .insert(examModerationSamples)
    .values({ batch_id: batchId, tolerance, percent: body.percent ?? null, chosen_by: callerId })
    .onConflictDoUpdate({
      target: examModerationSamples.batch_id,
      set: { tolerance, percent: body.percent ?? null, chosen_by: callerId, chosen_at: sql`now()` },
    });
  await tx.delete(examModerationScripts).where(eq(examModerationScripts.batch_id, batchId));
  await tx.insert(examModerationScripts).values(chosen.map((submissionId) => ({ batch_id: batchId, submission_id: submissionId })));
  return getModeration(tx, callerId, { batch_id: batchId });
}
