import type { TickBox } from "../../../lib/rules/tick-boxes";

/**
 * A template proposed from a paper's own content (issue 37, item 1): what the template editor draws over
 * the paper for the teacher to check. Rectangles are page fractions (0–1, origin top left), as the
 * canvas holds them (server/exam/canvas.ts); labels are as printed ("1", "3(a)", "3(b)(i)"), and a
 * part names its parent by label. Every item says how sure the reader is: "sure" (read from the paper
 * and consistent with its totals) or "check" (a guess the teacher should look at).
 */

export type Confidence = "sure" | "check";

export interface ProposedRect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ProposedQuestion {
  label: string;
  parent_label: string | null;
  /** A part's printed maximum; a question with parts: the total of its parts (null when one is unknown). */
  max_marks: number | null;
  /** The page of its answer area (null for a question with parts, whose parts carry the areas). */
  page: number | null;
  area: ProposedRect | null;
  /** "ticks": its answer is a row of tick boxes (tick_boxes). */
  kind: "written" | "ticks";
  tick_boxes?: TickBox[];
  /** How the area was found: a printed box, ruled lines, the open space up to the next text, tick boxes. */
  area_from: "box" | "lines" | "space" | "ticks" | null;
  confidence: Confidence;
}

export interface TemplateProposal {
  page_count: number;
  questions: ProposedQuestion[];
  name_box: (ProposedRect & { page: number; confidence: Confidence }) | null;
  /** The total the paper states (its cover's "Total: 40 marks"), or null. */
  stated_total: number | null;
  /** The sum of the parts' maximum marks found. */
  marks_total: number;
  /** Sentences for the teacher: what could not be read, and every disagreement between the marks and the paper's totals. */
  warnings: string[];
  /** Pages read from their image (no text on them): boxes and lines only, their questions left to the teacher. */
  scanned_pages: number[];
}
