import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import { recordId } from "../http/input-rules";
import type { Tx } from "../db/client";
import { examBatches, examMarkEntries, examSubmissions } from "../db/schema";
import { notFound } from "../errors";
import { batchNames, presentSubmission } from "./anonymity";
import { submissionOutput } from "./batches";
import { markFromRow, markOutput } from "./marks";

export const submissionMarksInput = z.object({ submission_id: recordId("Submission") });
export const submissionMarksOutput = z.object({ submission: submissionOutput, marks: z.array(markOutput) });

/**
 * One submission with every mark entry recorded for it (what the marking screen shows and edits).
 * Read as the caller: a submission outside their scope is 404. An anonymous batch's submission comes
 * to staff without its student's name and id. A student reads no submission, not even their own, until
 * results are released to students (row-level security; docs/decisions.md "Students read no marks").
 */
export async function listSubmissionMarks(tx: Tx, input: z.input<typeof submissionMarksInput>): Promise<z.output<typeof submissionMarksOutput>> {
  const { submission_id: submissionId } = submissionMarksInput.parse(input);
  const [found] = await tx
    .select({ submission: examSubmissions, anonymous: examBatches.anonymous })
    .from(examSubmissions)
    .leftJoin(examBatches, eq(examBatches.id, examSubmissions.batch_id))
    .where(eq(examSubmissions.id, submissionId));
  if (!found) throw notFound("Submission");
  const marks = await tx
    .select()
    .from(examMarkEntries)
    .where(eq(examMarkEntries.submission_id, submissionId))
    .orderBy(asc(examMarkEntries.created_at), asc(examMarkEntries.id));
  return { submission: presentSubmission(found.submission, batchNames({ anonymous: found.anonymous ?? false })), marks: marks.map(markFromRow) };
}
