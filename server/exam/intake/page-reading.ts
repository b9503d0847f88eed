import type { PileAreaLayout, PileAreaReading } from "../ticks/reading";

/**
 * The seam between the imaging of class-set intake (server/exam/intake/imaging/: PDF pages, pixels and QR
 * codes, run in a worker process so the app's event loop stays free) and its filing rules (which page goes
 * where, in the database). The filing side only ever sees these shapes.
 */

/** Clockwise degrees that turn a scanned page upright. */
export type QuarterTurn = 0 | 90 | 180 | 270;

/** One page of a scanned pile, as read. */
export interface PageReading {
  /** 1-based position in the pile's PDF. */
  pilePage: number;
  /** Pages in the pile. */
  pileSize: number;
  /** The page alone, as a one-page PDF, as scanned (not rotated: `rotation` says how to show it). */
  onePagePdf: Uint8Array;
  /** The text of the first QR code read on the page, or null when none could be read. */
  code: string | null;
  /** From the code's orientation; 0 when no code was read. */
  rotation: QuarterTurn;
  /**
   * Present when the pile was read with its batch's areas (ReadPileOptions.areas): the page's tick boxes
   * and written areas read beside its code, against the template page its code names; null when the code
   * names no page with areas (or none of this batch) or the page could not be read.
   */
  areaReading?: PileAreaReading | null;
}

export interface ReadPileOptions {
  /** Resume: the first pile page to read (1-based); earlier pages are skipped, not read. */
  fromPage?: number;
  /** A pile with more pages is refused at once (AppError "invalid", the teacher's reason), before any is read. */
  maxPages?: number;
  signal?: AbortSignal;
  /** The batch's areas: each page whose code names one of its pages is read there too (PageReading.areaReading). */
  areas?: PileAreaLayout;
}

/**
 * Reads a pile (the bytes of one uploaded PDF), page by page in pile order. Throws an AppError
 * ("invalid") with a message for the teacher when the PDF cannot be opened at all; a page that cannot
 * be rendered is yielded with `code: null`, never dropped.
 * The pile's bytes are copied to the reader (server/exam/intake/imaging: its worker process); the caller's
 * array is left as it was.
 * `rotation` is relative to the page's content before any /Rotate the scanner set: it is the /Rotate
 * that shows the page upright (what assembleScript sets).
 */
export type ReadPile = (pdf: Uint8Array, options?: ReadPileOptions) => AsyncIterable<PageReading>;

/** One page of a script to assemble, in order. */
export interface AssemblyPage {
  onePagePdf: Uint8Array;
  rotation: QuarterTurn;
}

/** Joins one-page PDFs into a script's PDF, each page turned upright. */
export type AssembleScript = (pages: AssemblyPage[]) => Promise<Uint8Array>;
