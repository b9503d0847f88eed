import { asc, eq } from "drizzle-orm";
import { z } from "zod";
import { recordId } from "../http/record-id";
import type { Tx } from "../db/client";
import { examBatches, examMarkEntries, examSubmissions, examTemplates } from "../db/schema";
import { notFound } from "../errors";
import { batchNames, presentSubmission } from "./anonymity";
import { submissionOutput } from "./batches";
import { markFromRow, markOutput } from "./marks";
import { scanPageNumbers } from "./scan-page-numbers";

export const submissionMarksInput = z.object({ submission_id: recordId("Submission") });
export const submissionMarksOutput = z.object({
  submission: submissionOutput,
  marks: z.array(markOutput),
  /** Where the scan's pages belong (issue 32): the marking screen places them by these, never by position. */
  scan_page_numbers: z
    .array(z.number().int())
    .nullable()
    .describe("The paper's page number of each page of the scan, in order (1, 3, 4: page 2 was not scanned); null for a scan uploaded on its own, read in order from page 1"),
  paper_page_count: z.number().int().nullable().describe("The paper's pages (the template's page count), null when the template does not say"),
});

/**
 * One submission with every mark entry recorded for it (what the marking screen shows and edits).
 * Read as the caller: a submission outside their scope is 404. An anonymous batch's submission comes
 * to staff without its student's name and id. A student reads no submission here, not even their own:
 * before release row-level security hides it, after release its batch stays hidden to them (404 either
 * way; docs/decisions.md "Students read no marks"; their released script is the student slice's read).
 */
export async function listSubmissionMarks(tx: Tx, input: z.input<typeof submissionMarksInput>): Promise<z.output<typeof submissionMarksOutput>> {
  const { submission_id: submissionId } = submissionMarksInput.parse(input);
  const [found] = await tx
    .select({ submission: examSubmissions, anonymous: examBatches.anonymous, paperPageCount: examTemplates.page_count })
    .from(examSubmissions)
    // Inner: a student reads their own released submission (row-level security), never its batch; this
    // read names the marker and the scan's key, so it is staff's only (student-scripts.ts is the student's).
    .innerJoin(examBatches, eq(examBatches.id, examSubmissions.batch_id))
    .leftJoin(examTemplates, eq(examTemplates.id, examBatches.template_id))
    .where(eq(examSubmissions.id, submissionId));
  if (!found) throw notFound("Submission");
  const marks = await tx
    .select()
    .from(examMarkEntries)
    .where(eq(examMarkEntries.submission_id, submissionId))
    .orderBy(asc(examMarkEntries.created_at), asc(examMarkEntries.id));
  return {
    submission: presentSubmission(found.submission, batchNames({ anonymous: found.anonymous })),
    marks: marks.map(markFromRow),
    scan_page_numbers: found.submission.scan_url === null ? null : await scanPageNumbers(tx, submissionId),
    paper_page_count: found.paperPageCount ?? null,
  };
}
