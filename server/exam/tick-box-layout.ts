import { eq } from "drizzle-orm";
import { z } from "zod";
import { integer } from "../../lib/rules/input-rules";
import { tickBoxSchema } from "../../lib/rules/tick-boxes";
import type { Db } from "../db/client";
import { asUser } from "../db/rls";
import { files } from "../db/schema";
import { AppError } from "../errors";
import { recordId } from "../http/record-id";
import { objectStorage } from "../storage/configured-storage";
import type { ObjectStorage } from "../storage/object-storage";
import { intakeImaging } from "./intake/imaging-port";
import { readPaperBytes } from "./intake/print-scripts";
import { findTemplate } from "./own-template";

/**
 * "Find boxes" in the template editor (issue 36, item 1): the tick boxes printed inside a rectangle of
 * one page of the template's paper, found by the box finder (server/exam/ticks/find-boxes.ts) in the
 * imaging worker. Nothing is stored: the editor shows them, the teacher adjusts them, and they are
 * saved with the canvas. Whoever may read the template may ask (its owner and colleagues at the
 * school, as its other reads); another school's template is not found.
 */

const unit = z.number({ error: "must be a number" }).min(0, "must be between 0 and 1 (a share of the page)").max(1, "must be between 0 and 1 (a share of the page)");

const findTickBoxesBody = z
  .object({
    page: integer({ min: 1, max: 2000 }).describe("The page of the paper (1-based)"),
    x: unit,
    y: unit,
    width: unit.refine((value) => value > 0, "must be more than 0"),
    height: unit.refine((value) => value > 0, "must be more than 0"),
  })
  .refine((area) => area.x + area.width <= 1 && area.y + area.height <= 1, { message: "the rectangle must lie inside the page (x + width ≤ 1, y + height ≤ 1)", path: ["width"] })
  .describe("Where to look: a page-relative rectangle (0–1, origin top-left) of one page of the template's paper, as a response area");

export const findTickBoxesInput = z.object({ template_id: recordId("Template"), body: findTickBoxesBody });

export const findTickBoxesOutput = z.object({
  boxes: z.array(tickBoxSchema).describe("The boxes found inside the rectangle, in reading order (rows top to bottom, each left to right), labelled A, B, C …"),
});

const NO_PAPER = "This template has no paper PDF to find tick boxes in: add the paper's PDF to the template first";

export async function findTemplateTickBoxes(
  db: Db,
  callerId: string,
  { template_id: templateId, body }: z.output<typeof findTickBoxesInput>,
  options: { storage?: ObjectStorage } = {},
): Promise<z.output<typeof findTickBoxesOutput>> {
  const file = await asUser(db, callerId, async (tx) => {
    const template = await findTemplate(tx, templateId);
    if (template.page_count !== null && body.page > template.page_count) {
      throw new AppError("invalid", `page: page ${body.page} is beyond the paper's ${template.page_count === 1 ? "1 page" : `${template.page_count} pages`}`, "page");
    }
    if (!template.source_file_id) throw new AppError("conflict", NO_PAPER);
    // A school's own file, or a catalogue paper's (readable by every school).
    const [row] = await tx.select({ bucket: files.bucket, key: files.storage_key }).from(files).where(eq(files.id, template.source_file_id));
    if (!row) throw new AppError("conflict", NO_PAPER);
    return row;
  });
  const paper = await readPaperBytes(options.storage ?? objectStorage(), file);
  const { page, ...area } = body;
  return { boxes: await intakeImaging().findTickBoxes(paper, page, area) };
}
