"use client";

import { type ReactNode, useEffect, useLayoutEffect, useRef, useState } from "react";
import { Status } from "@/components/ui/Status";
import { Loading } from "@/components/ui/Loading";
import { type ScanLayout, keepScans, openScan, paintPage, paintedPage, scanLayout } from "./scan-pages";
import { missingPageSentence, placePages } from "./page-placement";

export interface HighlightArea {
  id: string;
  page: number;
  kind: "response" | "context";
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ScanSource {
  /** The submission id. */
  id: string;
  /** The scan's PDF bytes; undefined while they download. */
  bytes: ArrayBuffer | undefined;
}

export interface ScanViewerProps {
  scan: ScanSource;
  /** Which page of the paper each page of the scan is (null: in order from page 1), and the paper's pages (page-placement.ts). */
  pageNumbers: readonly number[] | null;
  paperPageCount: number | null;
  /** Told the scan's page count once it is open (the pages missing from a scan uploaded on its own follow from it). */
  onPageCount?: (scanId: string, pageCount: number) => void;
  /** Scripts to have ready, most likely first (the next one): opened and painted in the background,
   * from `page` (where that script will open) on, once the script on screen is painted. */
  upcoming: (ScanSource & { page: number })[];
  width: number;
  /** The current question's areas, on the paper's pages: highlighted on the page they belong to, and the first is scrolled into view. */
  areas: HighlightArea[];
  /** Page-relative rectangles blurred past reading (an anonymous batch's name box). */
  covers?: CoveredArea[];
  label: string;
  /** Drawn over each scanned page, above its areas and covers (the annotations). */
  renderOverlay?: (page: { scanPage: number; paperPage: number; ratio: number }) => ReactNode;
}

export interface CoveredArea {
  page: number;
  x: number;
  y: number;
  width: number;
  height: number;
  /** What the cover says it hides. */
  label: string;
}

/** Paint priorities: lower first (see scan-pages.ts). */
const PRIORITY_SHOWN_PAGE = 0;
const PRIORITY_REST_OF_SCRIPT = 1;
const PRIORITY_UPCOMING = 2;

type LayoutState = { state: "loading" } | { state: "failed" } | { state: "ready"; layout: ScanLayout };

/** The scan's layout: at once when the scan was prepared in the background, else once it opens. */
function useScanLayout({ id, bytes }: ScanSource): LayoutState {
  const known = scanLayout(id);
  const [failed, setFailed] = useState<string | null>(null);
  const [, setOpened] = useState(0);
  useEffect(() => {
    if (!bytes || scanLayout(id)) return;
    let live = true;
    openScan(id, bytes).then(
      () => live && setOpened((n) => n + 1),
      () => live && setFailed(id),
    );
    return () => {
      live = false;
    };
  }, [id, bytes]);
  if (known) return { state: "ready", layout: known };
  return failed === id ? { state: "failed" } : { state: "loading" };
}

/**
 * A scanned script, its pages one under another in the paper's order, with the current question's areas
 * highlighted. Pages are placed by their page number: a page of the paper that was not scanned shows as
 * missing where it belongs, and no area is drawn on another page. The viewer stays mounted from script
 * to script; a script prepared in the background shows in the same frame as its student's name, and one
 * that is not ready shows blank pages of the right size until painted (never the previous student's pages).
 */
export default function ScanViewer({ scan, pageNumbers, paperPageCount, onPageCount, upcoming, width, areas, covers = [], label, renderOverlay }: ScanViewerProps) {
  const root = useRef<HTMLDivElement>(null);
  const layout = useScanLayout(scan);
  const target = areas.find((area) => area.kind === "response") ?? areas[0];
  const placed = layout.state === "ready" ? placePages(layout.layout.pageCount, pageNumbers, paperPageCount) : [];
  const shownPage = placed.find((page) => page.paperPage === (target?.page ?? 1))?.scanPage ?? 1;
  const scannedPages = layout.state === "ready" ? layout.layout.pageCount : null;
  useEffect(() => {
    if (scannedPages !== null) onPageCount?.(scan.id, scannedPages);
  }, [scan.id, scannedPages, onPageCount]);

  const keep = [scan.id, ...upcoming.map((next) => next.id)].join(" ");
  useEffect(() => keepScans(keep.split(" ")), [keep]);
  useEffect(() => () => keepScans([]), []);

  // Prepare the scripts to come once this one's layout is known (its own pages are painted first anyway).
  const ready = layout.state === "ready";
  const upcomingKey = upcoming.map((next) => `${next.id}:${next.page}:${next.bytes ? 1 : 0}`).join(" ");
  const upcomingRef = useRef(upcoming);
  useLayoutEffect(() => {
    upcomingRef.current = upcoming;
  });
  useEffect(() => {
    if (!ready) return;
    upcomingRef.current.forEach((next, index) => {
      if (!next.bytes) return;
      const priority = PRIORITY_UPCOMING + 2 * index;
      openScan(next.id, next.bytes)
        .then(({ pageCount }) => {
          const first = Math.min(Math.max(1, next.page), pageCount);
          void paintPage(next.id, first, width, priority);
          for (let page = 1; page <= pageCount; page++) if (page !== first) void paintPage(next.id, page, width, priority + 1);
        })
        .catch(() => {}); // it will show its own error when it is on screen
    });
  }, [ready, upcomingKey, width]);

  // Scroll the current area into view before the frame is painted.
  useLayoutEffect(() => {
    const area = root.current?.querySelector<HTMLElement>("[data-current-area]");
    if (area) centerInScrollFrame(area);
  }, [scan.id, target?.id, width, ready]);

  if (layout.state === "failed") {
    return (
      <Status tone="error" title="The scan could not be displayed">
        The PDF did not open. Mark from the paper copy, or upload the scan again.
      </Status>
    );
  }
  if (layout.state === "loading") {
    return <Loading>Opening the scan…</Loading>;
  }
  const { ratios } = layout.layout;
  const targetMissing = target && placed.some((page) => page.paperPage === target.page && page.scanPage === null);
  return (
    <div ref={root} className="scan-viewer">
      {placed.map(({ paperPage, scanPage }) => {
        const pageLabel = `${label}, page ${paperPage} of ${placed.length}`;
        if (scanPage === null) {
          return (
            <section
              key={`missing-${paperPage}`}
              className="scan-viewer__page scan-viewer__page--missing"
              aria-label={`${pageLabel}, not scanned`}
              data-testid="missing-page"
              data-current-area={targetMissing && target.page === paperPage ? "" : undefined}
              style={{ width }}
            >
              <p className="scan-viewer__missing">{missingPageSentence(paperPage)}.</p>
            </section>
          );
        }
        return (
          <section key={paperPage} className="scan-viewer__page" aria-label={pageLabel} data-paper-page={paperPage} style={{ width }}>
            <PageCanvas
              scanId={scan.id}
              page={scanPage}
              width={width}
              ratio={ratios[scanPage - 1] ?? Math.SQRT2}
              priority={scanPage === shownPage ? PRIORITY_SHOWN_PAGE : PRIORITY_REST_OF_SCRIPT}
            />
            {areas
              .filter((area) => area.page === paperPage)
              .map((area) => (
                <div
                  key={area.id}
                  className={`scan-viewer__area scan-viewer__area--${area.kind}`}
                  data-current-area={area.id === target?.id ? "" : undefined}
                  style={{ left: `${area.x * 100}%`, top: `${area.y * 100}%`, width: `${area.width * 100}%`, height: `${area.height * 100}%` }}
                />
              ))}
            {covers
              .filter((cover) => cover.page === paperPage)
              .map((cover, index) => (
                <div
                  key={`cover-${index}`}
                  className="scan-viewer__cover"
                  data-testid="name-box-cover"
                  style={{ left: `${cover.x * 100}%`, top: `${cover.y * 100}%`, width: `${cover.width * 100}%`, height: `${cover.height * 100}%` }}
                >
                  <span className="scan-viewer__cover-label">{cover.label}</span>
                </div>
              ))}
            {renderOverlay?.({ scanPage, paperPage, ratio: ratios[scanPage - 1] ?? Math.SQRT2 })}
          </section>
        );
      })}
    </div>
  );
}

/**
 * Scrolls the nearest scrolling ancestor (the scan's frame) so the area sits in the middle of what is
 * in sight under the frame's sticky tools, or shows the area's top when it is taller than that. Only
 * that frame moves: scrollIntoView would also scroll the page itself wherever it can (on a tablet, the
 * marking panel and the navigation out of sight).
 */
function centerInScrollFrame(area: HTMLElement) {
  let frame = area.parentElement;
  while (frame && !(frame.scrollHeight > frame.clientHeight && /auto|scroll/.test(getComputedStyle(frame).overflowY))) frame = frame.parentElement;
  if (!frame || frame === document.documentElement || frame === document.body) return;
  const areaBox = area.getBoundingClientRect();
  const frameBox = frame.getBoundingClientRect();
  // What stays at the top of the frame over the script (the annotation tools) hides that much of it.
  const covered = frame.querySelector<HTMLElement>("[data-covers-scroll-top]")?.offsetHeight ?? 0;
  const visible = frame.clientHeight - covered;
  const offset = areaBox.top - frameBox.top - frame.clientTop - covered;
  frame.scrollTop += areaBox.height > visible ? offset - 8 : offset - (visible - areaBox.height) / 2;
}

/**
 * One page: a sheet of the page's proportions holding the painted canvas. The canvas is put in place
 * in a layout effect, so a page painted ahead shows in the same frame as the rest of the script. A page
 * painted for another width (the window was resized) is shown scaled until the sharp one is ready.
 */
function PageCanvas({ scanId, page, width, ratio, priority }: { scanId: string; page: number; width: number; ratio: number; priority: number }) {
  const sheet = useRef<HTMLDivElement>(null);
  useLayoutEffect(() => {
    const element = sheet.current;
    if (!element) return;
    const painted = paintedPage(scanId, page);
    element.replaceChildren(...(painted ? [painted.canvas] : []));
    if (painted?.width === width) return;
    let live = true;
    paintPage(scanId, page, width, priority).then(
      (canvas) => live && element.replaceChildren(canvas),
      () => {}, // released (another script is on screen) or unpaintable: the sheet stays blank
    );
    return () => {
      live = false;
    };
  }, [scanId, page, width, priority]);
  return <div ref={sheet} className="scan-viewer__sheet" style={{ aspectRatio: `1 / ${ratio}` }} />;
}
