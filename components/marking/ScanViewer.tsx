"use client";

import { useEffect, useRef, useState } from "react";
import { Document, Page, pdfjs } from "react-pdf";
import { Spinner } from "@/components/ui/Spinner";
import { Status } from "@/components/ui/Status";

// The worker is bundled and served by the app (no CDN).
pdfjs.GlobalWorkerOptions.workerSrc = new URL("pdfjs-dist/build/pdf.worker.min.mjs", import.meta.url).toString();

export interface HighlightArea {
  id: string;
  page: number;
  kind: "response" | "context";
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface ScanViewerProps {
  /** An object URL of the scan's bytes (a string, so the document is not reopened on re-render). */
  url: string;
  width: number;
  /** The current question's areas: highlighted, and the first is scrolled into view. */
  areas: HighlightArea[];
  label: string;
}

/** A scanned script, its pages one under another, with the current question's areas highlighted. */
export default function ScanViewer({ url, width, areas, label }: ScanViewerProps) {
  const [pageCount, setPageCount] = useState(0);
  const [rendered, setRendered] = useState(0);
  const root = useRef<HTMLDivElement>(null);
  const target = areas.find((area) => area.kind === "response") ?? areas[0];
  // Another script: forget the previous one's pages (the viewer stays mounted, so pdf.js keeps its worker).
  const [shownUrl, setShownUrl] = useState(url);
  if (shownUrl !== url) {
    setShownUrl(url);
    setPageCount(0);
  }

  useEffect(() => {
    const element = root.current?.querySelector<HTMLElement>("[data-current-area]");
    element?.scrollIntoView({ block: "center", behavior: "auto" });
  }, [target?.id, rendered, width]);

  return (
    <div ref={root} className="scan-viewer">
      <Document
        file={url}
        onLoadSuccess={({ numPages }) => setPageCount(numPages)}
        loading={
          <p className="loading-line" role="status">
            <Spinner /> Opening the scan…
          </p>
        }
        error={
          <Status tone="error" title="The scan could not be displayed">
            The PDF did not open. Mark from the paper copy, or upload the scan again.
          </Status>
        }
      >
        {Array.from({ length: pageCount }, (_, index) => {
          const pageNumber = index + 1;
          return (
            <section key={pageNumber} className="scan-viewer__page" aria-label={`${label}, page ${pageNumber} of ${pageCount}`} style={{ width }}>
              <Page
                pageNumber={pageNumber}
                width={width}
                renderTextLayer={false}
                renderAnnotationLayer={false}
                onRenderSuccess={() => setRendered((n) => n + 1)}
                loading={<div className="scan-viewer__placeholder" style={{ height: width * 1.414 }} />}
              />
              {areas
                .filter((area) => area.page === pageNumber)
                .map((area) => (
                  <div
                    key={area.id}
                    className={`scan-viewer__area scan-viewer__area--${area.kind}`}
                    data-current-area={area.id === target?.id ? "" : undefined}
                    style={{ left: `${area.x * 100}%`, top: `${area.y * 100}%`, width: `${area.width * 100}%`, height: `${area.height * 100}%` }}
                  />
                ))}
            </section>
          );
        })}
      </Document>
    </div>
  );
}
