/**
 * What reading a scanned page's tick boxes and written areas gives (issue 36): the shapes the imaging
 * worker answers `readAreas` with, and that filing will later store. Positions are page fractions
 * (0–1, origin top left) of the TEMPLATE page, as response areas are.
 */

import { hasTickBoxes, type TickBox } from "../../../lib/rules/tick-boxes";

/** One printed tick box of a template's tick-box area, as the template holds it. */
export type TickBoxLayout = TickBox;

/** A page-relative rectangle of the template page (fractions, origin top left). */
export interface AreaRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export type BoxState = "ticked" | "empty" | "uncertain";

export interface BoxReading {
  label: string;
  /** ticked: a tick or cross (chosen); empty: nothing, or filled in whole (cancelled); uncertain: a person looks. */
  state: BoxState;
  /** Share of the box's inside inked beyond its printed outline (0–1, pale pencil counts in part). */
  ink: number;
  /** The box is filled in whole: cancelled, by the convention (CORRECTIONS_CONVENTION). */
  filled: boolean;
}

export interface TickAreaReading {
  /** The caller's id of the area. */
  id: string;
  /** The labels ticked, in the layout's order ([] for none); null when any box is uncertain. */
  answer: string[] | null;
  boxes: BoxReading[];
  /** Why the area is undecided when it is for a reason of the whole area (it could not be aligned). */
  reason?: "not-aligned";
}

export type BlankState = "blank" | "written" | "uncertain";

export interface WrittenAreaReading {
  id: string;
  blank: BlankState;
  /** Share of the area inked beyond its printed content (0–1). */
  ink: number;
  reason?: "not-aligned";
}

/** How the scan was placed on the template. */
interface PageAlignment {
  /** "code": from the printed code's corners; "content": from the page's printed content; "none": not aligned (everything uncertain). */
  by: "code" | "content" | "none";
  /** The turn (clockwise degrees) found between the scan as given upright and the template: 0 unless the rotation given was wrong. */
  turn: 0 | 180;
}

export interface AreasReading {
  alignment: PageAlignment;
  tickAreas: TickAreaReading[];
  writtenAreas: WrittenAreaReading[];
}

/** A tick-box area to read: the caller's id, its boxes. */
export interface TickAreaToRead {
  id: string;
  boxes: TickBoxLayout[];
}

/** A written response area to look at: the caller's id, its rectangle. */
export interface WrittenAreaToRead extends AreaRect {
  id: string;
}

/** A page's areas as the pile pass read them (beside its code): the template page they were read against, and the reading. */
export interface PileAreaReading {
  page: number;
  reading: AreasReading;
}

/**
 * A batch's areas, given once when its pile is opened (openPile): the pile pass reads each page whose
 * code names a page of this batch with areas, in the same worker call as its code (readPilePage).
 */
export interface PileAreaLayout {
  /** The batch's code: only pages whose code names this batch are read. */
  batchCode: string;
  /** The template's paper (the print's source). */
  paper: Uint8Array;
  /** What the print kept clear (the response areas and the name box): with the paper's page sizes, where each page's code went (printedCodeRect). */
  keepClear: (AreaRect & { page: number })[];
  /** Each template page with areas to read. */
  pages: { page: number; tickAreas: TickAreaToRead[]; writtenAreas: WrittenAreaToRead[] }[];
}

/** A page's response areas as the reader takes them: those with boxes read for their ticks, the others for writing. */
export function areasToRead(areas: readonly (AreaRect & { id: string; tick_boxes?: TickBox[] | null })[]): { tickAreas: TickAreaToRead[]; writtenAreas: WrittenAreaToRead[] } {
  return {
    tickAreas: areas.filter(hasTickBoxes).map(({ id, tick_boxes }) => ({ id, boxes: tick_boxes })),
    writtenAreas: areas.filter((area) => !hasTickBoxes(area)).map(({ id, x, y, width, height }) => ({ id, x, y, width, height })),
  };
}
