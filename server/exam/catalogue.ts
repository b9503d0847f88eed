import { asc } from "drizzle-orm";
import { z } from "zod";
import type { Tx } from "../db/client";
import { demoPaperCanvas } from "./demo-paper/canvas";
import { demoPaper } from "./demo-paper/data";
import { type GeneratedPaper, generateDemoPaper } from "./demo-paper/pdf";
import { examPapers } from "../db/schema";
import type { Canvas, NameBoxPayload } from "./canvas";
import { isMultipleChoiceScheme } from "../../lib/rules/tick-boxes";

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
  /** Markable questions the paper comes with (0: a template from it starts empty), and their total. */
  question_count: z.number().int(),
  total_marks: z.number(),
});
export const catalogueListOutput = z.object({ papers: z.array(cataloguePaperOutput) });

export async function listCataloguePapers(tx: Tx): Promise<z.output<typeof cataloguePaperOutput>[]> {
  const papers = await tx
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
  return Promise.all(
    papers.map(async (paper) => {
      const markable = (await catalogueStructure(paper.id))?.questions.filter((question) => !question.is_container) ?? [];
      const cents = markable.reduce((sum, question) => sum + Math.round((question.max_marks ?? 0) * 100), 0);
      return { ...paper, question_count: markable.length, total_marks: cents / 100 };
    }),
  );
}

// ── Question structures shipped with catalogue papers ──────────────────────────────────────────

/** The demo paper's layout, drawn once per process (a pure function of the code: the same every time). */
let demoPaperLayout: Promise<GeneratedPaper> | null = null;
function demoLayout(): Promise<GeneratedPaper> {
  demoPaperLayout ??= generateDemoPaper().catch((error: unknown) => {
    demoPaperLayout = null;
    throw error;
  });
  return demoPaperLayout;
}

/** What a catalogue paper comes with: its canvas, and where students write their name on it. */
export type CatalogueStructure = Canvas & { name_box: NameBoxPayload | null };

/** The structure each catalogue paper ships with, by exam_papers.id: questions, marks, spec points, areas, name box. */
const shippedStructures: Record<string, () => Promise<CatalogueStructure>> = {
  [demoPaper.id]: async () => {
    const layout = await demoLayout();
    return { ...demoPaperCanvas(layout), name_box: layout.nameBox };
  },
};

/**
 * The questions (labels, maximum marks, mark schemes, specification points), the areas on the
 * paper's pages and the name box that a catalogue paper comes with, with fresh ids; null for a paper without one.
 */
export async function catalogueStructure(examId: string): Promise<CatalogueStructure | null> {
  const build = Object.hasOwn(shippedStructures, examId) ? shippedStructures[examId] : undefined;
  return build ? build() : null;
}

/**
 * A catalogue paper's questions for a template over another PDF, whose areas are left out (they would sit
 * in the wrong places): a multiple-choice question keeps its type but not its right answer, which names
 * boxes of the areas left out; the teacher finds the boxes on their PDF and says the right one again.
 */
export function questionsWithoutAreas(structure: Pick<CatalogueStructure, "questions">): CatalogueStructure["questions"] {
  return structure.questions.map((question) =>
    question.mark_scheme && isMultipleChoiceScheme(question.mark_scheme) ? { ...question, mark_scheme: { ...question.mark_scheme, correct: [] } } : question,
  );
}
