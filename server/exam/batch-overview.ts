import { and, desc, eq, inArray, sql } from "drizzle-orm";
import { z } from "zod";
import type { Tx } from "../db/client";
import { classes, examBatches, examSubmissions, examTemplates } from "../db/schema";
import { batchOutput, listBatchesInput } from "./batches";
import { type SubmissionState, type SubmissionStateCounts, countSubmissionStates, submissionState, submissionStates } from "../../lib/rules/submission-state";

/** One row of the batches screen: the batch, what it marks, for whom, and how far it has got. */
export const batchOverviewOutput = z.object({
  batches: z.array(
    batchOutput.extend({
      template_title: z.string().nullable(),
      class_name: z.string().nullable(),
      progress: z.object({ total: z.number().int(), absent: z.number().int(), complete: z.number().int(), in_progress: z.number().int() }),
      /** Submissions in each state, as the screens word them (submission-state.ts). */
      states: z.object(Object.fromEntries(submissionStates.map((state) => [state, z.number().int()])) as Record<SubmissionState, z.ZodNumber>),
    }),
  ),
});

/**
 * The caller's visible batches (as listBatches: newest first, archived only on request) with the
 * template's title, the class's name and the queue's progress counts, in one statement, so the list
 * does not ask once per batch. Progress counts the same way as the queue (in progress = matched +
 * marking); unmatched scans count in the total only.
 */
export async function listBatchOverview(tx: Tx, input: z.input<typeof listBatchesInput>): Promise<z.output<typeof batchOverviewOutput>> {
  const filters = listBatchesInput.parse(input);
  const counted = (condition: ReturnType<typeof sql>) => sql<number>`count(${examSubmissions.id}) filter (where ${condition})::int`;
  const rows = await tx
    .select({
      batch: examBatches,
      template_title: examTemplates.title,
      class_name: classes.name,
      total: sql<number>`count(${examSubmissions.id})::int`,
      absent: counted(sql`${examSubmissions.status} = 'absent'`),
      complete: counted(sql`${examSubmissions.status} = 'complete'`),
      in_progress: counted(sql`${examSubmissions.status} in ('matched', 'marking')`),
    })
    .from(examBatches)
    .leftJoin(examTemplates, eq(examTemplates.id, examBatches.template_id))
    .leftJoin(classes, eq(classes.id, examBatches.class_id))
    .leftJoin(examSubmissions, eq(examSubmissions.batch_id, examBatches.id))
    .where(
      and(
        filters.include_archived ? undefined : eq(examBatches.status, "open"),
        filters.template_id ? eq(examBatches.template_id, filters.template_id) : undefined,
      ),
    )
    .groupBy(examBatches.id, examTemplates.title, classes.name)
    .orderBy(desc(examBatches.created_at), desc(examBatches.id));
  const states = await stateCounts(tx, rows.map((row) => row.batch.id));
  return {
    batches: rows.map((row) => ({
      ...row.batch,
      template_title: row.template_title,
      class_name: row.class_name,
      progress: { total: Number(row.total), absent: Number(row.absent), complete: Number(row.complete), in_progress: Number(row.in_progress) },
      states: states.get(row.batch.id) ?? countSubmissionStates([]),
    })),
  };
}

/**
 * Submissions in each state, per batch: the database groups them by what the state depends on, and
 * submissionState names each group, so the rule is said once.
 */
async function stateCounts(tx: Tx, batchIds: string[]): Promise<Map<string, SubmissionStateCounts>> {
  const counts = new Map<string, SubmissionStateCounts>();
  if (batchIds.length === 0) return counts;
  const groups = await tx
    .select({
      batch_id: examSubmissions.batch_id,
      status: examSubmissions.status,
      marked_absent: sql<boolean>`${examSubmissions.absence_marked_at} is not null`,
      has_student: sql<boolean>`${examSubmissions.student_id} is not null`,
      // Qualified by hand: inside a subquery drizzle would print the bare column names.
      has_marks: sql<boolean>`exists (select from exam_mark_entries entry where entry.submission_id = exam_submissions.id)`,
      count: sql<number>`count(*)::int`,
    })
    .from(examSubmissions)
    .where(inArray(examSubmissions.batch_id, batchIds))
    .groupBy(sql`1, 2, 3, 4, 5`);
  for (const group of groups) {
    const facts = {
      status: group.status,
      absence_marked_at: group.marked_absent ? "marked" : null,
      has_student: group.has_student,
      marks_entered: group.has_marks ? 1 : 0,
    };
    const batch = counts.get(group.batch_id) ?? countSubmissionStates([]);
    batch[submissionState(facts)] += Number(group.count);
    counts.set(group.batch_id, batch);
  }
  return counts;
}
