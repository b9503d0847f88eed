import { type AreaPlacement, type TemplatePage, WORK_DPI, areaPixels, darknessAt } from "./align";
import type { BlankState, WrittenAreaReading, WrittenAreaToRead } from "./reading";

/**
 * Whether a written response area holds writing: the scan's area, aligned on the template (align.ts),
 * less everything the template prints there (ruled lines, the box's edges, printed words, widened by the
 * blur and a pixel of misplacement), looked at for ink. Specks of dust and copier noise are not ink: a
 * pixel counts when it and most of its neighbours are dark. A false blank costs a student marks, so
 * "blank" needs almost nothing left, "written" a small mark (a digit is plenty), and between them a
 * person looks (decisions-new/tick-reader.md, "Blank areas").
 */

const MM = WORK_DPI / 25.4;
/** Darkness from which a pixel is ink (pencil included). */
const INK = 0.28;
/** Left aside along the area's edges: its outline and what a misplacement moves in. */
const EDGE = 0.8 * MM;

export const BLANK_THRESHOLDS = {
  /** At most this much ink (mm²) is blank. */
  blankUpTo: 0.25,
  /** From this much ink (mm²) is written: a full stop is ~0.2 mm², a "1" ~2 mm². */
  writtenFrom: 1,
} as const;

export function readWrittenArea(template: TemplatePage, area: WrittenAreaToRead, placement: AreaPlacement): WrittenAreaReading {
  const view = placement.view;
  if (!view) return { id: area.id, blank: "uncertain", ink: 0, reason: "not-aligned" };
  const outer = areaPixels(template, area);
  const region = {
    left: Math.max(0, Math.round(outer.left + EDGE)),
    top: Math.max(0, Math.round(outer.top + EDGE)),
    width: Math.round(outer.width - 2 * EDGE),
    height: Math.round(outer.height - 2 * EDGE),
  };
  region.width = Math.min(region.width, template.image.width - region.left);
  region.height = Math.min(region.height, template.image.height - region.top);
  if (region.width < 3 || region.height < 3) return { id: area.id, blank: "uncertain", ink: 0 };
  const { width } = region;
  const inked = new Uint8Array(region.width * region.height);
  for (let y = 0; y < region.height; y++)
    for (let x = 0; x < width; x++) {
      const tx = x + region.left;
      const ty = y + region.top;
      if (template.printedWide[ty * template.image.width + tx]) continue;
      if ((darknessAt(view, tx, ty) ?? 0) >= INK) inked[y * width + x] = 1;
    }
  let solid = 0;
  for (let y = 1; y < region.height - 1; y++)
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      if (!inked[i]) continue;
      const neighbours = inked[i - width - 1]! + inked[i - width]! + inked[i - width + 1]! + inked[i - 1]! + inked[i + 1]! + inked[i + width - 1]! + inked[i + width]! + inked[i + width + 1]!;
      // A stroke's pixel has two neighbours or more along it; a speck of dust or noise has fewer.
      if (neighbours >= 2) solid++;
    }
  const mm2 = solid / (MM * MM);
  const blank: BlankState = mm2 <= BLANK_THRESHOLDS.blankUpTo ? "blank" : mm2 >= BLANK_THRESHOLDS.writtenFrom ? "written" : "uncertain";
  return { id: area.id, blank, ink: Math.round((solid / (region.width * region.height)) * 10000) / 10000 };
}
