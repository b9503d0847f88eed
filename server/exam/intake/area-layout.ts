import { and, asc, eq } from "drizzle-orm";
import type { Tx } from "../../db/client";
import { examBatches, examResponseAreas } from "../../db/schema";
import { logger } from "../../logger";
import { type ObjectStorage } from "../../storage/object-storage";
import { areasToRead, type PileAreaLayout } from "../ticks/reading";
import { readPaper, readPaperBytes } from "./print-scripts";

type BatchRow = Pick<typeof examBatches.$inferSelect, "template_id" | "print_code">;

/** A batch's areas to read, before its paper is read from storage: what the database says. */
export interface AreaLayoutPlan {
  batchCode: string;
  paper: { bucket: string; key: string };
  keepClear: PileAreaLayout["keepClear"];
  pages: PileAreaLayout["pages"];
}

/**
 * The areas a batch's pile is read with (issue 36), in the transaction that reads the pile: each
 * template page's tick-box areas (a response area with tick_boxes) and written areas (every other
 * response area; context areas are not answers), each by its response area's id, and the places the
 * print kept clear (print-scripts.ts, readPaper: where each page's code went). Null when there is
 * nothing to read: a batch never printed (no code names it), a template without its paper's PDF, or
 * without response areas.
 */
export async function areaLayoutPlan(tx: Tx, batch: BatchRow): Promise<AreaLayoutPlan | null> {
  if (!batch.print_code) return null;
  const paper = await readPaper(tx, batch);
  if (!paper.file) return null;
  const areas = await tx
    .select({ id: examResponseAreas.id, page: examResponseAreas.page, x: examResponseAreas.x, y: examResponseAreas.y, width: examResponseAreas.width, height: examResponseAreas.height, tick_boxes: examResponseAreas.tick_boxes })
    .from(examResponseAreas)
    .where(and(eq(examResponseAreas.template_id, batch.template_id), eq(examResponseAreas.kind, "response")))
    .orderBy(asc(examResponseAreas.page), asc(examResponseAreas.y), asc(examResponseAreas.id));
  if (areas.length === 0) return null;
  const pages = [...new Set(areas.map((area) => area.page))].map((page) => ({ page, ...areasToRead(areas.filter((area) => area.page === page)) }));
  return {
    batchCode: batch.print_code,
    paper: paper.file,
    keepClear: paper.keepClear.map(({ page, x, y, width, height }) => ({ page, x, y, width, height })),
    pages,
  };
}

/** The plan with its paper read from storage; null (the pile is read for its codes alone) when the paper cannot be read. */
export async function areaLayout(plan: AreaLayoutPlan | null, storage: ObjectStorage): Promise<PileAreaLayout | null> {
  if (!plan) return null;
  try {
    const { paper, ...rest } = plan;
    return { ...rest, paper: await readPaperBytes(storage, paper) };
  } catch (error) {
    logger.warn("the template's paper could not be read for the pile's areas; the pile is read for its codes", error);
    return null;
  }
}
