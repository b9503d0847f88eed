"use client";

import { Fragment, useState, type ReactNode } from "react";
import { Document, Page, pdfjs } from "react-pdf";
import { Status } from "@/components/ui/Status";
import { Loading } from "@/components/ui/Loading";

// The worker is bundled and served by the app (no CDN).
pdfjs.GlobalWorkerOptions.workerSrc = new URL("pdfjs-dist/build/pdf.worker.min.mjs", import.meta.url).toString();

export interface PdfPagesProps {
  url: string;
  width: number;
  renderOverlay: (page: number) => ReactNode;
  onPageCount: (count: number) => void;
  /** Shown under each page, outside its frame (the student's page: what is marked on it, in words). */
  renderAfter?: (page: number) => ReactNode;
  /** The loading line and the failure's words, when the PDF is not a paper (a student's scan). */
  loadingText?: string;
  failure?: { title: string; text: string };
}

/** The PDF's pages one under another at `width` pixels, each with its overlay. Client-only (pdf.js). */
export default function PdfPages({ url, width, renderOverlay, onPageCount, renderAfter, loadingText, failure }: PdfPagesProps) {
  const [pageCount, setPageCount] = useState(0);
  return (
    <Document
      file={url}
      className="paper__document"
      onLoadSuccess={({ numPages }) => {
        setPageCount(numPages);
        onPageCount(numPages);
      }}
      loading={
        <Loading>{loadingText ?? "Loading the paper…"}</Loading>
      }
      error={
        <Status tone="error" title={failure?.title ?? "The paper could not be displayed"}>
          {failure?.text ?? "The PDF did not load. Reload the page; if it keeps failing, the file may be damaged: create the template again from another copy."}
        </Status>
      }
    >
      {Array.from({ length: pageCount }, (_, index) => (
        <Fragment key={index}>
          <section className="paper__page" aria-label={`Page ${index + 1} of ${pageCount}`} style={{ width }}>
            <Page pageNumber={index + 1} width={width} renderTextLayer={false} renderAnnotationLayer={false} loading={<div className="paper__placeholder" style={{ height: width * 1.414 }} />} />
            {renderOverlay(index + 1)}
          </section>
          {renderAfter?.(index + 1)}
        </Fragment>
      ))}
    </Document>
  );
}
