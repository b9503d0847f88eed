"use client";

import { useId, useLayoutEffect, useRef, useState, type ReactNode } from "react";

/** Width of an element in CSS pixels, kept current; charts draw at real size so their text stays legible. */
function useElementWidth<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    setWidth(element.clientWidth);
    const observer = new ResizeObserver(([entry]) => {
      if (entry) setWidth(Math.floor(entry.contentRect.width));
    });
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [ref, width] as const;
}

interface ChartFrameProps {
  title: string;
  /** One or two sentences under the title: what is counted and what is left out. */
  description: ReactNode;
  /** The chart's data as a table for screen readers (visually hidden). */
  dataTable: ReactNode;
  /** A figure-wide message instead of the plot (e.g. nothing to draw yet). */
  emptyMessage?: ReactNode;
  legend?: ReactNode;
  className?: string;
  /** Draws the plot for the measured width; the SVG carries role="img" and a one-sentence summary. */
  children: (width: number) => ReactNode;
}

/** One chart: a titled figure with its note, the plot, a legend and a text alternative. */
export function ChartFrame({ title, description, dataTable, emptyMessage, legend, className, children }: ChartFrameProps) {
  const titleId = useId();
  const [plotRef, width] = useElementWidth<HTMLDivElement>();
  return (
    <figure className={["chart", className].filter(Boolean).join(" ")} aria-labelledby={titleId}>
      <figcaption className="chart__caption">
        <h3 id={titleId} className="chart__title">
          {title}
        </h3>
        <p className="chart__description">{description}</p>
      </figcaption>
      {emptyMessage ? (
        <p className="chart__empty">{emptyMessage}</p>
      ) : (
        <>
          <div ref={plotRef} className="chart__plot">
            {width > 0 ? children(width) : null}
          </div>
          {legend ? <div className="chart__legend">{legend}</div> : null}
          <div className="visually-hidden">{dataTable}</div>
        </>
      )}
    </figure>
  );
}

/** Round numbers for a count axis: 0, step, 2·step… up to at least `max`, about four steps. */
export function countTicks(max: number): number[] {
  const top = Math.max(1, max);
  const rough = top / 4;
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * magnitude).find((candidate) => candidate >= rough) ?? 10 * magnitude);
  const ticks: number[] = [];
  for (let value = 0; value < top + step; value += step) {
    ticks.push(value);
    if (value >= top) break;
  }
  return ticks;
}

/** A rough width of `text` at `fontSize` px in the system sans font (no DOM measuring on every render). */
export function textWidth(text: string, fontSize: number): number {
  return text.length * fontSize * 0.6;
}

export const PERCENT_TICKS = [0, 25, 50, 75, 100];
