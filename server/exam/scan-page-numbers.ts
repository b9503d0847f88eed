import { and, asc, eq } from "drizzle-orm";
import type { Tx } from "../db/client";
import { examScanPages } from "../db/schema";

/**
 * Which page of the paper each page of a submission's scan is (issue 32: a missing page never shifts
 * the evidence). A script filed from pile pages is assembled from its filed pages in position order,
 * without a gap where a page was not scanned: its pages are the filed pages' numbers (1, 3, 4 when page
 * 2 is missing). A scan uploaded on its own has no filed pages: null, its pages are read in order from
 * page 1 (the uploader's order; docs/decisions.md "Missing pages and reconciling").
 */
export async function scanPageNumbers(tx: Tx, submissionId: string): Promise<number[] | null> {
  const pages = await tx
    .select({ page_number: examScanPages.page_number })
    .from(examScanPages)
    .where(and(eq(examScanPages.submission_id, submissionId), eq(examScanPages.placement, "filed")))
    .orderBy(asc(examScanPages.page_number));
  return pages.length === 0 ? null : pages.map((page) => page.page_number!);
}

/**
 * The page of the scan that holds page `paperPage` of the paper, 1-based; null when that page was not
 * scanned. `pageNumbers` as scanPageNumbers gives them (null: in order, the scan's page count unknown).
 */
export function scanPageOf(pageNumbers: readonly number[] | null, paperPage: number): number | null {
  if (pageNumbers === null) return paperPage;
  const index = pageNumbers.indexOf(paperPage);
  return index < 0 ? null : index + 1;
}
