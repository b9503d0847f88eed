import { z } from "zod";
import type { Tx } from "../../db/client";
import { type MarkPair, agreementOf } from "./agreement-stats";
import { type PairRow, pairsOfBatch } from "./pairs";
import { moderationBatchInput, moderatorBatch, sampleTolerance } from "./shared";

/** Agreement of first and second marks, per question and per first marker (the formulas are agreement-stats.ts). */

const driftBlock = z.object({ from: z.number().int(), to: z.number().int(), n: z.number().int(), mean_difference: z.number() });
const agreementShape = {
  n: z.number().int(),
  mean_difference: z.number().nullable().describe("Mean of second − first"),
  mean_absolute_difference: z.number().nullable(),
  within_tolerance: z.number().nullable().describe("Share (0..1) of pairs differing by at most the tolerance"),
  kappa: z.number().nullable().describe("Quadratic-weighted Cohen's kappa over the question's scale"),
  kappa_note: z.string().nullable().describe("Why kappa is null"),
  drift_per_10: z.number().nullable().describe("Least-squares slope of second − first per 10 scripts, in the order of the first marks"),
  drift_blocks: z.array(driftBlock).describe("Mean second − first per block of 5 consecutive pairs"),
};
const questionAgreement = z.object({ question_id: z.uuid(), label: z.string(), max_marks: z.number().nullable(), ...agreementShape });

export const agreementOutput = z.object({
  batch_id: z.uuid(),
  tolerance: z.number(),
  questions: z.array(questionAgreement),
  markers: z.array(
    z.object({
      marker_id: z.uuid().nullable(),
      marker_name: z.string().nullable(),
      ...agreementShape,
      questions: z.array(questionAgreement),
    }),
  ),
});

const toPair = (row: PairRow): MarkPair => ({ first: Number(row.first_marks), second: Number(row.second_marks), firstMarkedAt: new Date(row.first_marked_at).getTime() });

function byQuestion(rows: PairRow[], tolerance: number) {
  const groups = new Map<string, PairRow[]>();
  for (const row of rows) groups.set(row.question_id, [...(groups.get(row.question_id) ?? []), row]);
  return [...groups.values()]
    .sort((a, b) => a[0]!.order - b[0]!.order || a[0]!.label.localeCompare(b[0]!.label))
    .map((group) => {
      const max = group[0]!.max_marks === null ? null : Number(group[0]!.max_marks);
      return { question_id: group[0]!.question_id, label: group[0]!.label, max_marks: max, ...agreementOf(group.map(toPair), max ?? 0, tolerance) };
    });
}

/**
 * GET /api/exam/batches/{batch_id}/moderation/agreement (moderators): agreement per question, and per
 * first marker (over all their pairs, and per question). A marker's κ over several questions is null:
 * κ compares marks on one scale.
 */
export async function getAgreement(tx: Tx, callerId: string, input: z.input<typeof moderationBatchInput>): Promise<z.output<typeof agreementOutput>> {
  const { batch_id: batchId } = moderationBatchInput.parse(input);
  await moderatorBatch(tx, callerId, batchId);
  const tolerance = await sampleTolerance(tx, batchId);
  const rows = await pairsOfBatch(tx, batchId);
  const markers = new Map<string, PairRow[]>();
  for (const row of rows) markers.set(row.first_marker_id ?? "", [...(markers.get(row.first_marker_id ?? "") ?? []), row]);
  return {
    batch_id: batchId,
    tolerance,
    questions: byQuestion(rows, tolerance),
    markers: [...markers.values()]
      .map((group) => {
        const questions = byQuestion(group, tolerance);
        const overall = agreementOf(group.map(toPair), 1, tolerance);
        const single = questions.length === 1 ? questions[0]! : null;
        return {
          marker_id: group[0]!.first_marker_id,
          marker_name: group[0]!.first_marker_name,
          ...overall,
          kappa: single ? single.kappa : null,
          kappa_note: single ? single.kappa_note : "Kappa is given per question: the questions' scales differ",
          questions,
        };
      })
      .sort((a, b) => (a.marker_name ?? "").localeCompare(b.marker_name ?? "")),
  };
}
