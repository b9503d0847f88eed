"use client";

import { useMemo } from "react";
import { type MarkingMode, pageOfQuestion, questionNextScriptOpensOn, upcomingScans } from "./marking-order";
import type { HighlightArea } from "./ScanViewer";
import { useScanPlacement } from "./use-scan-placement";
import { useScans } from "./use-scans";

/**
 * The scan pane of the first marker's screen: the script's scan (the next one fetched ahead, the
 * previous one kept while cached, use-scans.ts), where its pages belong (a page not scanned is shown
 * missing, never replaced by the next one; use-scan-placement.ts), the current question's areas to
 * highlight, and the scans the viewer keeps ready, the next one on the page it will open on.
 */
export function useScriptScan<Q extends { id: string }>({
  submissionId,
  around,
  areasOfPaper,
  placement,
  questionId,
  questions,
  questionIndex,
  mode,
}: {
  submissionId: string | null;
  around: { next: { id: string } | undefined; previous: { id: string } | undefined; wrapsAround: boolean };
  /** The paper's response areas (none until it is read). */
  areasOfPaper: readonly (HighlightArea & { question_id: string })[] | undefined;
  /** The script's page numbers and the paper's page count, once its marks are read. */
  placement: { pageNumbers: readonly number[] | null; paperPageCount: number | null } | undefined;
  /** The question on screen. */
  questionId: string | undefined;
  questions: readonly Q[];
  questionIndex: number;
  mode: MarkingMode;
}) {
  const { scan, nextBytes, previousBytes } = useScans(submissionId, around.next, around.previous);
  const { onPageCount, missingFor } = useScanPlacement(submissionId ?? undefined, placement, areasOfPaper ?? []);
  const areas: HighlightArea[] = useMemo(() => (areasOfPaper ?? []).filter((area) => area.question_id === questionId), [areasOfPaper, questionId]);
  const nextPage = useMemo(
    () => pageOfQuestion(areasOfPaper ?? [], questionNextScriptOpensOn(questions, questionIndex, mode, around.wrapsAround)?.id),
    [areasOfPaper, mode, around.wrapsAround, questionIndex, questions],
  );
  const upcoming = useMemo(
    () => upcomingScans(around.next && { id: around.next.id, bytes: nextBytes, page: nextPage }, around.previous && { id: around.previous.id, bytes: previousBytes }),
    [around.next, nextBytes, nextPage, around.previous, previousBytes],
  );
  return { scan, onPageCount, missingFor, areas, upcoming };
}
