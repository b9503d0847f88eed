import { type AreaPlacement, type TemplatePage, WORK_DPI, areaPixels, darknessAt } from "./align";
import type { AreaRect, BlankState, WrittenAreaReading, WrittenAreaToRead } from "./reading";

/**
 * Whether a written response area holds writing: the scan's area, aligned on the template (align.ts),
 * less everything the template prints there (ruled lines, the box's edges, printed words, widened by the
 * blur and a pixel of misplacement), looked at for ink. Specks of dust and copier noise are not ink: a
 * pixel counts when it and most of its neighbours are dark. A false blank costs a student marks, so
 * "blank" needs almost nothing left, "written" a small mark (a digit is plenty), and between them a
 * person looks (docs/decisions/intake-and-scans.md, "Tick boxes and blank answers read from the scan").
 */

const MM = WORK_DPI / 25.4;
/** Darkness from which a pixel is ink (pencil included). */
const INK = 0.15;
/** Left aside along the area's edges: its outline and what a misplacement moves in. */
const EDGE = 0.8 * MM;

const BLANK_THRESHOLDS = {
  /** At most this much ink (mm²) is blank. */
  blankUpTo: 0.25,
  /** From this much ink (mm²) is written: a full stop is ~0.2 mm², a "1" ~2 mm². */
  writtenFrom: 1,
} as const;

/** The largest side (mm) of the pieces a written area is aligned by: a long ruled line's ends need their own shift. */
const TILE_MM = 45;

/** The pieces (page fractions) of a written area, each aligned on its own; one for a small area. */
export function writtenTiles(template: TemplatePage, area: AreaRect): AreaRect[] {
  const widthMm = (area.width * template.image.width * 25.4) / WORK_DPI;
  const heightMm = (area.height * template.image.height * 25.4) / WORK_DPI;
  const columns = Math.max(1, Math.ceil(widthMm / TILE_MM));
  const rows = Math.max(1, Math.ceil(heightMm / TILE_MM));
  const tiles: AreaRect[] = [];
  for (let row = 0; row < rows; row++)
    for (let column = 0; column < columns; column++)
      tiles.push({ x: area.x + (area.width * column) / columns, y: area.y + (area.height * row) / rows, width: area.width / columns, height: area.height / rows });
  return tiles;
}

/**
 * `tiles` are writtenTiles(area) with their placements. A piece whose print is too little to place it by
 * (the middle of a large plain box) is not aligned, and the area is then uncertain.
 */
export function readWrittenArea(template: TemplatePage, area: WrittenAreaToRead, tiles: { rect: AreaRect; placement: AreaPlacement }[]): WrittenAreaReading {
  const outer = areaPixels(template, area);
  const inner = {
    left: Math.max(0, Math.round(outer.left + EDGE)),
    top: Math.max(0, Math.round(outer.top + EDGE)),
    right: Math.min(template.image.width, Math.round(outer.left + outer.width - EDGE)),
    bottom: Math.min(template.image.height, Math.round(outer.top + outer.height - EDGE)),
  };
  if (inner.right - inner.left < 3 || inner.bottom - inner.top < 3) return { id: area.id, blank: "uncertain", ink: 0 };
  let solid = 0;
  let pixels = 0;
  for (const tile of tiles) {
    const view = tile.placement.view;
    if (!view) return { id: area.id, blank: "uncertain", ink: 0, reason: "not-aligned" };
    const box = areaPixels(template, tile.rect);
    const region = { left: Math.max(inner.left, box.left), top: Math.max(inner.top, box.top), right: Math.min(inner.right, box.left + box.width), bottom: Math.min(inner.bottom, box.top + box.height) };
    if (region.right <= region.left || region.bottom <= region.top) continue;
    const counted = solidInk(template, view, region);
    solid += counted;
    pixels += (region.right - region.left) * (region.bottom - region.top);
  }
  const mm2 = solid / (MM * MM);
  const blank: BlankState = mm2 <= BLANK_THRESHOLDS.blankUpTo ? "blank" : mm2 >= BLANK_THRESHOLDS.writtenFrom ? "written" : "uncertain";
  return { id: area.id, blank, ink: Math.round((solid / Math.max(1, pixels)) * 10000) / 10000 };
}

/** solidInk's map of inked pixels, reused (it lives for one call; a fresh one a piece was an allocation the collector had to follow). */
let inkedScratch = new Uint8Array(0);

/** The ink pixels of `region` (template pixels) beyond the print that have two ink neighbours or more. */
function solidInk(template: TemplatePage, view: NonNullable<AreaPlacement["view"]>, region: { left: number; top: number; right: number; bottom: number }): number {
  const width = region.right - region.left;
  const height = region.bottom - region.top;
  if (inkedScratch.length < width * height) inkedScratch = new Uint8Array(width * height);
  const inked = inkedScratch.subarray(0, width * height).fill(0);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const tx = x + region.left;
      const ty = y + region.top;
      if (template.printedWide[ty * template.image.width + tx]) continue;
      if ((darknessAt(view, tx, ty) ?? 0) >= INK) inked[y * width + x] = 1;
    }
  let solid = 0;
  for (let y = 1; y < height - 1; y++)
    for (let x = 1; x < width - 1; x++) {
      const i = y * width + x;
      if (!inked[i]) continue;
      const neighbours = inked[i - width - 1]! + inked[i - width]! + inked[i - width + 1]! + inked[i - 1]! + inked[i + 1]! + inked[i + width - 1]! + inked[i + width]! + inked[i + width + 1]!;
      // A stroke's pixel has two neighbours or more along it; a speck of dust or noise has fewer.
      if (neighbours >= 2) solid++;
    }
  return solid;
}
