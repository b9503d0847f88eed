import { eq, sql } from "drizzle-orm";
import { z } from "zod";
import { type Tx, rowsOf } from "../../db/client";
import { examBatchSignOffs, examModerationSamples, examModerationScripts, examSecondMarks, examSubmissions } from "../../db/schema";
import { findVisibleBatch } from "../batches";
import { differencesAbove } from "./pairs";
import { isHeadOf } from "../batch-gate";
import { moderationBatchInput, toleranceOf } from "./shared";

/** What the moderation page reads of a batch: its sample, how many second marks, its sign-off and what a sign-off would leave undone. */

const signOffOutput = z.object({ signed_off_by: z.uuid().nullable(), signed_off_by_name: z.string().nullable(), signed_off_at: z.date() });

export const moderationStateOutput = z.object({
  batch_id: z.uuid(),
  sample: z
    .object({
      tolerance: z.number(),
      percent: z.number().int().nullable(),
      chosen_by: z.uuid().nullable(),
      chosen_at: z.date(),
      submission_ids: z.array(z.uuid()).describe("In script order"),
    })
    .nullable(),
  second_marks: z.number().int().describe("Second marks of the batch the caller reads: every one for a moderator, their own for another marker"),
  sign_off: signOffOutput.nullable().describe("Null while the batch is not signed off"),
  can_moderate: z.boolean().describe("The caller is the batch's owner or a department head of its school"),
  can_sign_off: z.boolean().describe("The caller is a department head of the batch's school"),
  /** What a sign-off would leave undone: the sign-off dialog names these counts and asks to confirm. */
  before_sign_off: z.object({
    unmarked_scripts: z.number().int().describe("Scripts with a scan that are not completely marked (every leaf question confirmed with a value)"),
    unreconciled_differences: z.number().int().describe("Differences above the tolerance without a final mark"),
    unsecond_marked_scripts: z.number().int().describe("Scripts of the sample without any second mark"),
  }),
});

async function currentSignOff(tx: Tx, batchId: string) {
  const rows = rowsOf<{ signed_off_by: string | null; signed_off_by_name: string | null; signed_off_at: string | Date }>(
    await tx.execute(sql`select o.signed_off_by, u.full_name as signed_off_by_name, o.signed_off_at
      from ${examBatchSignOffs} o left join users u on u.id = o.signed_off_by
      where o.batch_id = ${batchId} and o.reopened_at is null`),
  );
  const row = rows[0];
  return row ? { ...row, signed_off_at: new Date(row.signed_off_at) } : null;
}

/** GET /api/exam/batches/{batch_id}/moderation: the sample, how many second marks, and the sign-off. */
export async function getModeration(tx: Tx, callerId: string, input: z.input<typeof moderationBatchInput>): Promise<z.output<typeof moderationStateOutput>> {
  const { batch_id: batchId } = moderationBatchInput.parse(input);
  const batch = await findVisibleBatch(tx, batchId);
  const head = await isHeadOf(tx, callerId, batch.institute_id);
  const [sample] = await tx.select().from(examModerationSamples).where(eq(examModerationSamples.batch_id, batchId));
  const scripts = sample
    ? await tx
        .select({ id: examSubmissions.id })
        .from(examModerationScripts)
        .innerJoin(examSubmissions, eq(examSubmissions.id, examModerationScripts.submission_id))
        .where(eq(examModerationScripts.batch_id, batchId))
        .orderBy(examSubmissions.script_number)
    : [];
  const [counted] = rowsOf<{ count: number | string }>(await tx.execute(sql`select count(*) as count from ${examSecondMarks} where batch_id = ${batchId}`));
  return {
    batch_id: batchId,
    sample: sample
      ? {
          tolerance: Number(sample.tolerance),
          percent: sample.percent,
          chosen_by: sample.chosen_by,
          chosen_at: sample.chosen_at,
          submission_ids: scripts.map((script) => script.id),
        }
      : null,
    second_marks: Number(counted?.count ?? 0),
    sign_off: await currentSignOff(tx, batchId),
    can_moderate: head || batch.teacher_id === callerId,
    can_sign_off: head,
    before_sign_off: await beforeSignOff(tx, batchId, toleranceOf(sample)),
  };
}

/** The counts a department head is warned of before signing off (none of them refuses the sign-off). */
async function beforeSignOff(tx: Tx, batchId: string, tolerance: number): Promise<z.output<typeof moderationStateOutput>["before_sign_off"]> {
  const [counts] = rowsOf<{ unmarked: number | string; unsecond: number | string }>(
    await tx.execute(sql`select
        (select count(*) from ${examSubmissions} s where s.batch_id = ${batchId} and s.scan_url is not null and s.status <> 'complete') as unmarked,
        (select count(*) from ${examModerationScripts} ms where ms.batch_id = ${batchId}
          and not exists (select 1 from ${examSecondMarks} sm where sm.submission_id = ms.submission_id)) as unsecond`),
  );
  const unreconciled = (await differencesAbove(tx, batchId, tolerance)).filter((row) => row.final_marks === null);
  return { unmarked_scripts: Number(counts?.unmarked ?? 0), unreconciled_differences: unreconciled.length, unsecond_marked_scripts: Number(counts?.unsecond ?? 0) };
}
