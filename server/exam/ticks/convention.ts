/**
 * The convention for corrections (issue 36), printed on the first page of every script of a paper with
 * tick boxes (server/exam/intake/stamp.ts, print-scripts.ts) and followed by the reader (read-ticks.ts):
 * a tick or a cross in a box chooses it; a box filled in whole is cancelled. Short enough to print as one
 * line of small type across an A4 page. Its own file, without the reader's imaging, so the print step
 * (and the routes' bundles that load it) take only these words.
 */
export const CORRECTIONS_CONVENTION =
  "Tick boxes: mark each answer you choose with a tick or a cross. To change your mind, fill the wrong box in completely: a filled box is not chosen.";
