import { asc } from "drizzle-orm";
import { z } from "zod";
import type { Tx } from "../db/client";
import { examPapers } from "../db/schema";

/**
 * The catalogue of exam papers every school may use (RLS: any signed-in user reads it). The web app
 * lists it so a teacher can start a template from a published paper instead of uploading one.
 */
export const cataloguePaperOutput = z.object({
  id: z.string(),
  exam_code: z.string(),
  title: z.string(),
  subject: z.string().nullable(),
  board: z.string().nullable(),
  specification: z.string().nullable(),
  source_file_id: z.uuid().nullable(),
  page_count: z.number().int().nullable(),
});
export const catalogueListOutput = z.object({ papers: z.array(cataloguePaperOutput) });

export async function listCataloguePapers(tx: Tx): Promise<z.output<typeof cataloguePaperOutput>[]> {
  return tx
    .select({
      id: examPapers.id,
      exam_code: examPapers.exam_code,
      title: examPapers.title,
      subject: examPapers.subject,
      board: examPapers.board,
      specification: examPapers.specification,
      source_file_id: examPapers.source_file_id,
      page_count: examPapers.page_count,
    })
    .from(examPapers)
    .orderBy(asc(examPapers.subject), asc(examPapers.title));
}
