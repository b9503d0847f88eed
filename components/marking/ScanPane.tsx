"use client";

import type { UseQueryResult } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import { type ReactNode, useCallback, useRef, useState } from "react";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Loading } from "@/components/ui/Loading";
import type { UpcomingScan } from "./marking-order";
import { pdfWorkerPort } from "./pdf-worker";
import type { CoveredArea, HighlightArea, ScanViewerProps } from "./ScanViewer";

// pdf.js runs in the browser only. There, its chunk and its worker are asked for as soon as this module
// runs (before the page has hydrated), so they download while the scan's bytes do.
const loadScanViewer = () => import("./ScanViewer");
if (typeof window !== "undefined") {
  pdfWorkerPort();
  void loadScanViewer();
}
const ScanViewer = dynamic(loadScanViewer, {
  ssr: false,
  loading: () => <Loading>Opening the scan…</Loading>,
});

/**
 * The left half of a marking screen (first or second marking): the script's scan in a frame that
 * scrolls, its pages placed by their page number (ScanViewer, page-placement.ts). Focusable so keyboard
 * users can scroll the script; the shortcuts keep working from here.
 */
export function ScanPane({
  scriptId,
  scan,
  placement,
  onPageCount,
  placementFailed,
  upcoming,
  areas,
  covers,
  label,
  toolbar,
  renderOverlay,
}: {
  scriptId: string;
  scan: UseQueryResult<ArrayBuffer>;
  /** Where the scan's pages belong; undefined while the server has not said (the scan waits for it, never shown misplaced). */
  placement: { pageNumbers: readonly number[] | null; paperPageCount: number | null } | undefined;
  /** Where the pages belong could not be read: the scan is not shown (it could be misplaced) until a retry reads it. */
  placementFailed?: { error: unknown; retry: () => Promise<unknown> };
  onPageCount: (scanId: string, pageCount: number) => void;
  upcoming: UpcomingScan[];
  areas: HighlightArea[];
  covers: CoveredArea[];
  label: string;
  /** Tools kept at the top of the frame while the script scrolls under them (the annotation tools). */
  toolbar?: ReactNode;
  renderOverlay?: ScanViewerProps["renderOverlay"];
}) {
  const [width, setWidth] = useState(600);
  const observer = useRef<ResizeObserver | null>(null);
  const frame = useCallback((element: HTMLDivElement | null) => {
    observer.current?.disconnect();
    if (!element) return;
    observer.current = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.max(280, Math.floor(entry.contentRect.width) - 2));
    });
    observer.current.observe(element);
  }, []);
  return (
    <div className="marking__scan" ref={frame} aria-label={label} role="region" tabIndex={0}>
      {toolbar}
      {scan.isError ? (
        <LoadFailed what="The scan" error={scan.error} onRetry={() => scan.refetch()} />
      ) : placement === undefined && placementFailed ? (
        <LoadFailed what="The script's pages" error={placementFailed.error} onRetry={placementFailed.retry} />
      ) : placement === undefined ? (
        <Loading>Opening the scan…</Loading>
      ) : (
        <ScanViewer
          scan={{ id: scriptId, bytes: scan.data }}
          pageNumbers={placement.pageNumbers}
          paperPageCount={placement.paperPageCount}
          onPageCount={onPageCount}
          upcoming={upcoming}
          width={width}
          areas={areas}
          covers={covers}
          label={label}
          renderOverlay={renderOverlay}
        />
      )}
    </div>
  );
}
