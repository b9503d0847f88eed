import { randomUUID } from "node:crypto";
import { eq } from "drizzle-orm";
import { z } from "zod";
import type { Db } from "../db/client";
import { asUser } from "../db/rls";
import { files } from "../db/schema";
import { AppError } from "../errors";
import { objectStorage } from "../storage/configured-storage";
import type { ObjectStorage } from "../storage/object-storage";
import { boundaryPayload, nameBoxPayload, questionPayload, responseAreaPayload } from "./canvas";
import { intakeImaging } from "./intake/imaging-port";
import { readPaperBytes } from "./intake/print-scripts";
import { findOwnTemplateForUpdate } from "./own-template";
import { proposalToCanvas } from "./template-reading/to-canvas";

/**
 * "Read the paper" (issue 37, item 2): the template proposed from its own paper, as the editor's canvas
 * would hold it, for the teacher to check. Nothing is stored: the editor draws the proposal over the
 * paper, marks each item proposed until the teacher accepts it, and saves only what is accepted. The
 * paper is read in the imaging worker (server/exam/template-reading/read-paper.ts), bounded as every
 * file a person sends. The owner's, as the template's other writes: a colleague who can see the
 * template is refused (403), another school's user is told it does not exist (404). A Ready template
 * is refused: its questions are what marking uses, and a proposal would replace them.
 */

const confidence = z.enum(["sure", "check"]).describe('"sure": read from the paper and consistent with its totals; "check": a guess to look at');

export const proposeTemplateOutput = z.object({
  questions: z.array(questionPayload).describe("The questions and parts proposed, flat in tree order with parent_id (ids are new; nothing is stored)"),
  response_areas: z.array(responseAreaPayload).describe("One answer area per part (tick boxes on a tick-box question's)"),
  boundaries: z.array(boundaryPayload),
  name_box: nameBoxPayload.nullable(),
  items: z
    .array(
      z.object({
        question_id: z.uuid(),
        confidence,
        area_from: z.enum(["box", "lines", "space", "ticks"]).nullable().describe("How the answer area was found: a printed box, ruled lines, the open space up to the next text, tick boxes"),
      }),
    )
    .describe("How sure the reading is of each question, by its id"),
  name_box_confidence: confidence.nullable(),
  warnings: z
    .array(z.object({ message: z.string(), question_id: z.uuid().nullable().describe("The question the sentence is about, when it names one") }))
    .describe("Sentences for the teacher: what could not be read, and every disagreement between the marks and the paper's totals"),
  stated_total: z.number().nullable().describe("The total the paper states (its cover's \"Total: 40 marks\"), or null"),
  marks_total: z.number().describe("The sum of the parts' maximum marks found"),
  scanned_pages: z.array(z.number().int()).describe("Pages read from their image (no text layer): boxes and lines only"),
});

export type ProposeTemplateOutput = z.output<typeof proposeTemplateOutput>;

const NO_PAPER = "This template has no paper PDF to read: add the paper's PDF to the template first";
const READY =
  "This template is Ready: its questions are what marking uses, and reading the paper again would replace them. Set it back to Draft first";
const ARCHIVED = "This template is archived: restore it before reading its paper";

export async function proposeFromPaper(
  db: Db,
  callerId: string,
  { template_id: templateId }: { template_id: string },
  options: { storage?: ObjectStorage; newId?: () => string } = {},
): Promise<ProposeTemplateOutput> {
  const file = await asUser(db, callerId, async (tx) => {
    const template = await findOwnTemplateForUpdate(tx, callerId, templateId, "Only the template's owner can have its paper read");
    if (template.status === "ready") throw new AppError("conflict", READY);
    if (template.status === "archived") throw new AppError("conflict", ARCHIVED);
    if (!template.source_file_id) throw new AppError("conflict", NO_PAPER);
    const [row] = await tx.select({ bucket: files.bucket, key: files.storage_key }).from(files).where(eq(files.id, template.source_file_id));
    if (!row) throw new AppError("conflict", NO_PAPER);
    return row;
  });
  const paper = await readPaperBytes(options.storage ?? objectStorage(), file);
  const proposal = await intakeImaging().proposeTemplate(paper);
  const { canvas, name_box } = proposalToCanvas(proposal, options.newId ?? randomUUID);
  const idOf = new Map(canvas.questions.map((question) => [question.label, question.id]));
  return {
    questions: canvas.questions,
    response_areas: canvas.response_areas.map((area) => ({ ...area, tick_boxes: area.tick_boxes ?? null })),
    boundaries: canvas.boundaries,
    name_box,
    items: proposal.questions.map((question) => ({ question_id: idOf.get(question.label)!, confidence: question.confidence, area_from: question.area_from })),
    name_box_confidence: proposal.name_box?.confidence ?? null,
    warnings: proposal.warnings.map((message) => ({ message: sentence(message), question_id: idOf.get(/^Question ([^:]+):/.exec(message)?.[1] ?? "") ?? null })),
    stated_total: proposal.stated_total,
    marks_total: proposal.marks_total,
    scanned_pages: proposal.scanned_pages,
  };
}

/** A warning as the teacher reads it: a capital first letter ("the marks add up to 38…" → "The marks…"). */
const sentence = (message: string) => message.charAt(0).toUpperCase() + message.slice(1);
