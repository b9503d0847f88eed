import type { ReactNode } from "react";

/** Without a PDF (a template made from a page count only): blank A4 pages to draw on. */
export function BlankPages({ count, width, renderOverlay }: { count: number; width: number; renderOverlay: (page: number) => ReactNode }) {
  return (
    <div className="paper__document">
      {Array.from({ length: count }, (_, index) => (
        <section key={index} className="paper__page paper__page--blank" aria-label={`Page ${index + 1} of ${count} (no PDF)`} style={{ width, height: width * 1.414 }}>
          {renderOverlay(index + 1)}
        </section>
      ))}
    </div>
  );
}
