"use client";

import dynamic from "next/dynamic";
import { type ReactNode, type RefObject, useEffect, useRef, useState } from "react";
import { useFillHeight } from "@/components/ui/use-fill-height";
import { Button } from "@/components/ui/Button";
import { Loading } from "@/components/ui/Loading";
import { BlankPages } from "./BlankPages";

// pdf.js cannot run on the server (Node 20): the viewer loads in the browser only.
const PdfPages = dynamic(() => import("./PdfPages"), {
  ssr: false,
  loading: () => <Loading>Loading the PDF viewer…</Loading>,
});

/** Page width at 100% when the column is wider (a comfortable reading size). */
const MAX_FIT_WIDTH = 900;
const zoomSteps = [0.5, 0.67, 0.8, 1, 1.25, 1.5, 2];

/** The width that fits the scroll area, tracked as the window resizes. */
function useFitWidth(element: RefObject<HTMLDivElement | null>) {
  const [width, setWidth] = useState(720);
  useEffect(() => {
    const target = element.current;
    if (!target) return;
    const measure = () => {
      // Hidden (the Questions view on a narrow screen): keep the last width, so pdf.js does not redraw every page.
      if (target.clientWidth === 0) return;
      const style = getComputedStyle(target);
      const inner = target.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
      setWidth(Math.max(280, Math.min(MAX_FIT_WIDTH, Math.floor(inner))));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(target);
    return () => observer.disconnect();
  }, [element]);
  return width;
}

/** The paper's frame is never shorter than this; below it, the page scrolls instead. */
const MIN_FRAME_HEIGHT = 352;

interface PaperViewProps {
  fileId: string | null;
  pageCount: number | null;
  zoom: number;
  onZoom: (zoom: number) => void;
  onPageCount: (count: number) => void;
  renderOverlay: (page: number) => ReactNode;
  hint: ReactNode;
  /** More controls for the toolbar, after the zoom. */
  tools?: ReactNode;
}

/** The paper's pages with a zoom bar; the overlay on each page is where areas are drawn. */
export function PaperView({ fileId, pageCount, zoom, onZoom, onPageCount, renderOverlay, hint, tools }: PaperViewProps) {
  const index = zoomSteps.indexOf(zoom);
  const frame = useRef<HTMLDivElement>(null);
  const fitWidth = useFitWidth(frame);
  // 100% fits the column; a page resized only when the width really changes keeps pdf.js from re-rendering.
  const width = Math.round(fitWidth * zoom);
  const height = useFillHeight(frame, MIN_FRAME_HEIGHT);
  return (
    <div className="paper">
      <div className="paper__toolbar">
        <div className="cluster" role="group" aria-label="Zoom">
          <Button variant="secondary" size="small" aria-label="Zoom out" disabled={index <= 0} onClick={() => onZoom(zoomSteps[index - 1]!)}>
            −
          </Button>
          <output className="paper__zoom" aria-live="polite" aria-label="Zoom level">
            {Math.round(zoom * 100)}%
          </output>
          <Button variant="secondary" size="small" aria-label="Zoom in" disabled={index >= zoomSteps.length - 1} onClick={() => onZoom(zoomSteps[index + 1]!)}>
            +
          </Button>
          <Button variant="secondary" size="small" disabled={zoom === 1} onClick={() => onZoom(1)}>
            Fit width
          </Button>
        </div>
        {tools}
        <p className="paper__hint">{hint}</p>
      </div>
      {/* Focusable, so the pages scroll from the keyboard even when they hold no area yet. */}
      <div className="paper__scroll" ref={frame} style={height === null ? undefined : { height }} tabIndex={0} role="region" aria-label="Pages of the paper">
        {fileId ? (
          <PdfPages url={`/api/exam/files/${fileId}`} width={width} renderOverlay={renderOverlay} onPageCount={onPageCount} />
        ) : (
          <BlankPages count={pageCount ?? 1} width={width} renderOverlay={renderOverlay} />
        )}
      </div>
    </div>
  );
}
