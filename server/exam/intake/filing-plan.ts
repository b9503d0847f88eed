import { decodePageCode } from "./print-code";

/**
 * Where each page of a read pile goes: the filing rules as a pure function (no database, no storage), so
 * that they are tested exhaustively (tests/intake-filing-plan.test.ts). server/exam/intake/filing.ts turns
 * the plan into rows and PDFs.
 */

export interface PlanReading {
  pageId: string;
  /** 1-based position in the pile: pile order is the order the pages were scanned in. */
  pilePage: number;
  /** The QR text as read, null when none was read. */
  code: string | null;
}

export interface PrintedScripts {
  /** The batch's code in its pages' QR codes (exam_batches.print_code); null before its first print. */
  batchCode: string | null;
  /** Script numbers printed for the batch, each with whether its student's scan was uploaded on its own. */
  scripts: ReadonlyMap<number, { scannedSeparately: boolean }>;
}

/**
 * Positions already held by filed pages, per printed script: script number → position → page id. Two
 * scripts filed in one submission (a spare copy identified as a student's) share one map.
 */
export type TakenPositions = ReadonlyMap<number, ReadonlyMap<number, string>>;

/** A printed script of the batch, or the `index`-th new script (no student, no code) this plan makes. */
type FilingTarget = { kind: "script"; scriptNumber: number } | { kind: "new"; index: number };

/** The printed script and page a code of this batch names; null for every other page. */
interface Printed {
  scriptNumber: number | null;
  printedPage: number | null;
}

export type PlannedPlacement = Printed & { pageId: string } & (
    | { placement: "filed"; target: FilingTarget; position: number }
    /** `same-page`: the position is held by `duplicateOf`; `scanned-separately`: the student's scan was uploaded on its own. */
    | { placement: "duplicate"; reason: "same-page" | "scanned-separately"; duplicateOf: string | null }
    /** `beyond-paper`: the code names a page the paper does not have (page 999 of a 4-page paper). */
    | { placement: "refused"; reason: RefusedReason }
  );

type RefusedReason = "other-batch" | "never-printed" | "beyond-paper";

type Classified =
  | { reading: PlanReading; kind: "coded"; scriptNumber: number; page: number }
  | { reading: PlanReading; kind: "refused"; reason: RefusedReason; printed: Printed }
  | { reading: PlanReading; kind: "unreadable" };

function classify(reading: PlanReading, printed: PrintedScripts, pageCount: number | null): Classified {
  if (reading.code === null) return { reading, kind: "unreadable" };
  const decoded = decodePageCode(reading.code);
  // A damaged code, or some other QR code (the paper's own): the page is as good as unreadable.
  if (decoded.kind !== "page") return { reading, kind: "unreadable" };
  if (decoded.batchCode !== printed.batchCode) return { reading, kind: "refused", reason: "other-batch", printed: { scriptNumber: null, printedPage: null } };
  if (!printed.scripts.has(decoded.scriptNumber)) {
    return { reading, kind: "refused", reason: "never-printed", printed: { scriptNumber: decoded.scriptNumber, printedPage: decoded.page } };
  }
  if (!isPageOfPaper(decoded.page, pageCount)) {
    return { reading, kind: "refused", reason: "beyond-paper", printed: { scriptNumber: decoded.scriptNumber, printedPage: decoded.page } };
  }
  return { reading, kind: "coded", scriptNumber: decoded.scriptNumber, page: decoded.page };
}

/**
 * The plan, in pile order, one placement per reading:
 * 1. a page of this batch's printed script goes to that script at its printed page; a page of another
 *    batch (or school), of a script never printed, or beyond the paper's pages (when the template says
 *    how many it has) is refused;
 * 2. a position already held (by an earlier pile, or earlier in this pile) makes the page a duplicate of
 *    the one kept; a script whose student's scan was uploaded on its own takes no pile pages;
 * 3. a run of k unreadable pages (no code, a damaged one, another QR code) between two coded pages of
 *    one script whose positions leave exactly k empty positions between them fills those positions (a
 *    torn corner), in the direction the pile runs; every other run is cut, in pile order, into new
 *    scripts of `pageCount` pages (the whole run when the template's page count is unknown).
 */
export function planFiling(readings: readonly PlanReading[], printed: PrintedScripts, takenPositions: TakenPositions, pageCount: number | null): PlannedPlacement[] {
  const pile = [...readings].sort((a, b) => a.pilePage - b.pilePage).map((reading) => classify(reading, printed, pageCount));
  // Copied, keeping shared maps shared: scripts filed in one submission fill one set of positions.
  const copies = new Map<ReadonlyMap<number, string>, Map<number, string>>();
  const taken = new Map<number, Map<number, string>>();
  for (const [script, positions] of takenPositions) taken.set(script, copies.get(positions) ?? copies.set(positions, new Map(positions)).get(positions)!);
  const positionsOf = (script: number) => taken.get(script) ?? taken.set(script, new Map()).get(script)!;
  const placements = new Map<string, PlannedPlacement>();

  for (const entry of pile) {
    const { pageId } = entry.reading;
    if (entry.kind === "refused") placements.set(pageId, { pageId, placement: "refused", reason: entry.reason, ...entry.printed });
    if (entry.kind !== "coded") continue;
    const printedAs = { scriptNumber: entry.scriptNumber, printedPage: entry.page };
    const held = positionsOf(entry.scriptNumber).get(entry.page);
    if (printed.scripts.get(entry.scriptNumber)!.scannedSeparately) {
      placements.set(pageId, { pageId, placement: "duplicate", reason: "scanned-separately", duplicateOf: null, ...printedAs });
    } else if (held !== undefined) {
      placements.set(pageId, { pageId, placement: "duplicate", reason: "same-page", duplicateOf: held, ...printedAs });
    } else {
      positionsOf(entry.scriptNumber).set(entry.page, pageId);
      placements.set(pageId, { pageId, placement: "filed", target: { kind: "script", scriptNumber: entry.scriptNumber }, position: entry.page, ...printedAs });
    }
  }

  let newScripts = 0;
  for (const { run, before, after } of unreadableRuns(pile)) {
    const gap = tornCornerGap(run.length, before, after, positionsOf, printed);
    if (gap) {
      run.forEach((entry, index) => {
        positionsOf(gap.scriptNumber).set(gap.positions[index]!, entry.reading.pageId);
        const target: FilingTarget = { kind: "script", scriptNumber: gap.scriptNumber };
        placements.set(entry.reading.pageId, { pageId: entry.reading.pageId, placement: "filed", target, position: gap.positions[index]!, scriptNumber: null, printedPage: null });
      });
      continue;
    }
    const size = pageCount ?? run.length;
    run.forEach((entry, index) => {
      const target: FilingTarget = { kind: "new", index: newScripts + Math.floor(index / size) };
      placements.set(entry.reading.pageId, { pageId: entry.reading.pageId, placement: "filed", target, position: (index % size) + 1, scriptNumber: null, printedPage: null });
    });
    newScripts += Math.ceil(run.length / size);
  }
  return pile.map((entry) => placements.get(entry.reading.pageId)!);
}

/** Whether `page` is a page of a paper of `pageCount` pages (any page from 1 when the count is unknown). */
export const isPageOfPaper = (page: number, pageCount: number | null) => page >= 1 && (pageCount === null || page <= pageCount);

/** Why a page is not a page of the paper, in words for the teacher. */
export const notAPageOfPaper = (page: number, pageCount: number | null) =>
  pageCount === null ? `Page ${page} is not a page of this paper` : `Page ${page} is not a page of this ${pageCount}-page paper`;

/** Maximal runs of unreadable pages in pile order, each with the readings just before and after it. */
function unreadableRuns(pile: Classified[]) {
  const runs: { run: Classified[]; before: Classified | undefined; after: Classified | undefined }[] = [];
  for (let start = 0; start < pile.length; start++) {
    if (pile[start]!.kind !== "unreadable") continue;
    let end = start;
    while (end + 1 < pile.length && pile[end + 1]!.kind === "unreadable") end++;
    runs.push({ run: pile.slice(start, end + 1), before: pile[start - 1], after: pile[end + 1] });
    start = end;
  }
  return runs;
}

/** The empty positions a torn-corner run fills, in the pile's direction; null when the rule does not apply. */
function tornCornerGap(
  length: number,
  before: Classified | undefined,
  after: Classified | undefined,
  positionsOf: (script: number) => Map<number, string>,
  printed: PrintedScripts,
): { scriptNumber: number; positions: number[] } | null {
  if (before?.kind !== "coded" || after?.kind !== "coded" || before.scriptNumber !== after.scriptNumber) return null;
  if (printed.scripts.get(before.scriptNumber)!.scannedSeparately) return null;
  const held = positionsOf(before.scriptNumber);
  const step = before.page < after.page ? 1 : -1;
  const positions: number[] = [];
  for (let position = before.page + step; position !== after.page && before.page !== after.page; position += step) {
    if (!held.has(position)) positions.push(position);
  }
  return positions.length === length ? { scriptNumber: before.scriptNumber, positions } : null;
}
