/**
 * Where each page of a scan belongs on the paper (issue 32: a missing page never shifts the evidence).
 * Pure, so the scan viewer, the marking panel and the tests share one rule. The server sends the
 * paper's page of each page of the scan (server/exam/scan-page-numbers.ts) — null for a scan uploaded
 * on its own, read in order from page 1 — and the paper's page count.
 */

/** One page of the paper: the scan's page that shows it (1-based), or null when it was not scanned. */
export interface PlacedPage {
  paperPage: number;
  scanPage: number | null;
}

/**
 * Every page of the paper in order, each with the scan's page that shows it, then any page of the scan
 * beyond the paper's last. Page numbers that do not fit the scan (a count other than its pages: the scan
 * changed since they were read) are not trusted: its pages are then read in order.
 */
export function placePages(scanPageCount: number, pageNumbers: readonly number[] | null | undefined, paperPageCount: number | null | undefined): PlacedPage[] {
  const numbers = pageNumbers && pageNumbers.length === scanPageCount ? pageNumbers : Array.from({ length: scanPageCount }, (_, index) => index + 1);
  const scanPageOf = new Map(numbers.map((paperPage, index) => [paperPage, index + 1]));
  const last = Math.max(paperPageCount ?? 0, ...numbers, 0);
  return Array.from({ length: last }, (_, index) => ({ paperPage: index + 1, scanPage: scanPageOf.get(index + 1) ?? null }));
}

/** The paper's pages that were not scanned, in order. */
export function missingPages(placed: readonly PlacedPage[]): number[] {
  return placed.flatMap((page) => (page.scanPage === null ? [page.paperPage] : []));
}

/** What a missing page's place on screen says. */
export const missingPageSentence = (paperPage: number) => `Page ${paperPage} was not scanned: its questions cannot be marked from this script`;

/** "Page 2" / "Pages 2 and 3" / "Pages 2, 3 and 5". */
export function pagesPhrase(pages: readonly number[]): string {
  if (pages.length === 1) return `Page ${pages[0]}`;
  return `Pages ${pages.slice(0, -1).join(", ")} and ${pages.at(-1)}`;
}

/**
 * The pages a question is answered on that the scan lacks: its response areas' pages (its other areas'
 * when it has no response area), those missing from the scan.
 */
export function questionPagesMissing(
  areas: readonly { question_id: string; kind: string; page: number }[],
  questionId: string | undefined,
  missing: readonly number[],
): number[] {
  const own = areas.filter((area) => area.question_id === questionId);
  const answered = own.some((area) => area.kind === "response") ? own.filter((area) => area.kind === "response") : own;
  return [...new Set(answered.map((area) => area.page))].filter((page) => missing.includes(page)).sort((a, b) => a - b);
}
