"use client";

import { useCallback, useState } from "react";
import { missingPages, placePages, questionPagesMissing } from "./page-placement";

/**
 * The pages of the paper the script on screen lacks, and per question the missing pages it is answered
 * on. A pile-filed script's page numbers say it at once; a scan uploaded on its own once the viewer has
 * opened it and reported its page count (`onPageCount`).
 */
export function useScanPlacement(
  scriptId: string | undefined,
  placement: { pageNumbers: readonly number[] | null; paperPageCount: number | null } | undefined,
  areas: readonly { question_id: string; kind: string; page: number }[],
) {
  const [pageCounts, setPageCounts] = useState<Record<string, number>>({});
  const onPageCount = useCallback((scanId: string, pageCount: number) => {
    setPageCounts((counts) => (counts[scanId] === pageCount ? counts : { ...counts, [scanId]: pageCount }));
  }, []);
  const scanPages = placement?.pageNumbers ? placement.pageNumbers.length : scriptId ? pageCounts[scriptId] : undefined;
  const missing = placement && scanPages !== undefined ? missingPages(placePages(scanPages, placement.pageNumbers, placement.paperPageCount)) : [];
  const missingFor = (questionId: string | undefined) => questionPagesMissing(areas, questionId, missing);
  return { onPageCount, missing, missingFor };
}
