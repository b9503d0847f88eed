import { sql } from "drizzle-orm";
import { z } from "zod";
import { type Tx, rowsOf } from "../../db/client";
import { examQuestions, examReconciliations, examSecondMarks, examSubmissions } from "../../db/schema";
import { scriptLabel } from "../anonymity";
import { withinTolerance } from "./agreement-stats";

/** The pairs of a first and a second mark of a batch, which agreement, the differences and the sign-off's warnings read. */

export type PairRow = {
  submission_id: string;
  script_number: number;
  question_id: string;
  label: string;
  order: number;
  max_marks: string | null;
  first_marks: string;
  first_marker_id: string | null;
  first_marker_name: string | null;
  first_marked_at: string | Date;
  second_marks: string;
  second_marker_id: string | null;
  second_marker_name: string | null;
  final_marks: string | null;
  reconciled_by: string | null;
  reconciled_at: string | Date | null;
};

/**
 * Every (first, second) pair of the batch: the first mark as it was before a reconciliation (kept in
 * exam_reconciliations with its marker and time) or as it stands, beside the second mark.
 */
export async function pairsOfBatch(tx: Tx, batchId: string): Promise<PairRow[]> {
  return rowsOf<PairRow>(
    await tx.execute(sql`select s.id as submission_id, s.script_number, q.id as question_id, q.label, q."order", q.max_marks::text as max_marks,
        coalesce(r.first_marks, m.awarded_marks)::text as first_marks,
        case when r.id is null then m.marked_by_user_id else r.first_marker_id end as first_marker_id,
        fu.full_name as first_marker_name,
        coalesce(r.first_marked_at, m.updated_at) as first_marked_at,
        sm.awarded_marks::text as second_marks, sm.marker_id as second_marker_id, su.full_name as second_marker_name,
        r.final_marks::text as final_marks, r.reconciled_by, r.reconciled_at
      from ${examSecondMarks} sm
      join ${examSubmissions} s on s.id = sm.submission_id
      join ${examQuestions} q on q.id = sm.question_id
      join exam_mark_entries m on m.submission_id = sm.submission_id and m.question_id = sm.question_id
      left join ${examReconciliations} r on r.submission_id = sm.submission_id and r.question_id = sm.question_id
      left join users fu on fu.id = case when r.id is null then m.marked_by_user_id else r.first_marker_id end
      left join users su on su.id = sm.marker_id
      where sm.batch_id = ${batchId} and coalesce(r.first_marks, m.awarded_marks) is not null
      order by s.script_number, q."order", q.label`),
  );
}

export const differenceRow = z.object({
  submission_id: z.uuid(),
  script_label: z.string(),
  question_id: z.uuid(),
  label: z.string(),
  max_marks: z.number().nullable(),
  first_marks: z.number(),
  first_marker_id: z.uuid().nullable(),
  first_marker_name: z.string().nullable(),
  second_marks: z.number(),
  second_marker_id: z.uuid().nullable(),
  second_marker_name: z.string().nullable(),
  difference: z.number().describe("second − first"),
  final_marks: z.number().nullable().describe("Set by a moderator; null while not reconciled"),
  reconciled_by: z.uuid().nullable(),
  reconciled_at: z.date().nullable(),
});

export const differenceOf = (row: PairRow): z.output<typeof differenceRow> => ({
  submission_id: row.submission_id,
  script_label: scriptLabel(row.script_number),
  question_id: row.question_id,
  label: row.label,
  max_marks: row.max_marks === null ? null : Number(row.max_marks),
  first_marks: Number(row.first_marks),
  first_marker_id: row.first_marker_id,
  first_marker_name: row.first_marker_name,
  second_marks: Number(row.second_marks),
  second_marker_id: row.second_marker_id,
  second_marker_name: row.second_marker_name,
  difference: Number((Number(row.second_marks) - Number(row.first_marks)).toFixed(2)),
  final_marks: row.final_marks === null ? null : Number(row.final_marks),
  reconciled_by: row.reconciled_by,
  reconciled_at: row.reconciled_at === null ? null : new Date(row.reconciled_at),
});

/** The batch's pairs that differ by more than the tolerance, reconciled or not: the moderators' list and the sign-off's warning read the same. */
export async function differencesAbove(tx: Tx, batchId: string, tolerance: number): Promise<z.output<typeof differenceRow>[]> {
  return (await pairsOfBatch(tx, batchId)).map(differenceOf).filter((row) => !withinTolerance(row.difference, tolerance));
}
