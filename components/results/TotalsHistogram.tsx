"use client";

import { formatPercent, type Band } from "./results-stats";
import { ChartFrame, countTicks } from "./ChartFrame";
import { plural } from "@/lib/text/plural";

const HEIGHT = 220;
const MARGIN = { top: 32, right: 14, bottom: 40, left: 34 };

interface TotalsHistogramProps {
  bands: Band[];
  maxTotal: number;
  /** Mean percentage of the same scripts, drawn as a dashed line. */
  meanPercent: number | null;
  markedCount: number;
  /** Students with no scan yet or marked absent: no score at all. */
  withoutScriptCount: number;
  unfinishedCount: number;
}

const bandName = (band: Band) => `${band.from}–${band.to}%`;

/** Histogram of the fully marked scripts' percentages in 10-point bands. */
export function TotalsHistogram({ bands, maxTotal, meanPercent, markedCount, withoutScriptCount, unfinishedCount }: TotalsHistogramProps) {
  const left: string[] = [];
  if (withoutScriptCount > 0) left.push(`${plural(withoutScriptCount, "student")} without a script`);
  if (unfinishedCount > 0) left.push(`${plural(unfinishedCount, "script")} still being marked`);
  const description = (
    <>
      Percentage of the total mark ({maxTotal}) of {plural(markedCount, "fully marked script")}.
      {left.length ? ` Not counted: ${left.join(" and ")}.` : null}
    </>
  );
  const filled = bands.filter((band) => band.count > 0);
  const summary =
    markedCount === 0
      ? "No fully marked scripts yet."
      : `${plural(markedCount, "script")}: ${filled.map((band) => `${band.count} in ${bandName(band)}`).join(", ")}.` +
        (meanPercent === null ? "" : ` Mean ${formatPercent(meanPercent, true)}.`);

  return (
    <ChartFrame
      title="Distribution of totals"
      description={description}
      emptyMessage={markedCount === 0 ? "No script is fully marked yet: the distribution appears once one is." : undefined}
      legend={
        meanPercent === null ? null : (
          <>
            <span className="chart__key chart__key--bar">Students per band</span>
            <span className="chart__key chart__key--mean">Mean, {formatPercent(meanPercent, true)}</span>
          </>
        )
      }
      dataTable={
        <table>
          <caption>Students per band of percentage (lower bound included)</caption>
          <thead>
            <tr>
              <th scope="col">Band</th>
              <th scope="col">Students</th>
            </tr>
          </thead>
          <tbody>
            {bands.map((band) => (
              <tr key={band.from}>
                <th scope="row">{bandName(band)}</th>
                <td>{band.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      {(width) => {
        const plotWidth = width - MARGIN.left - MARGIN.right;
        const plotHeight = HEIGHT - MARGIN.top - MARGIN.bottom;
        const ticks = countTicks(Math.max(...bands.map((band) => band.count)));
        const top = ticks.at(-1)!;
        const y = (count: number) => MARGIN.top + plotHeight - (count / top) * plotHeight;
        const slot = plotWidth / bands.length;
        const gap = Math.min(6, slot * 0.15);
        return (
          <svg width={width} height={HEIGHT} viewBox={`0 0 ${width} ${HEIGHT}`} role="img" aria-label={summary}>
            {ticks.map((tick) => (
              <g key={tick}>
                <line className="chart__grid" x1={MARGIN.left} x2={width - MARGIN.right} y1={y(tick)} y2={y(tick)} />
                <text className="chart__tick" x={MARGIN.left - 6} y={y(tick)} dy="0.32em" textAnchor="end">
                  {tick}
                </text>
              </g>
            ))}
            {bands.map((band, index) => {
              const x = MARGIN.left + index * slot + gap / 2;
              const barTop = y(band.count);
              return (
                <g key={band.from}>
                  {band.count > 0 ? (
                    <>
                      <rect className="chart__bar" x={x} y={barTop} width={slot - gap} height={MARGIN.top + plotHeight - barTop} rx={2}>
                        <title>{`${bandName(band)}: ${plural(band.count, "student")}`}</title>
                      </rect>
                      <text className="chart__value" x={x + (slot - gap) / 2} y={barTop - 5} textAnchor="middle">
                        {band.count}
                      </text>
                    </>
                  ) : null}
                </g>
              );
            })}
            <line className="chart__axis" x1={MARGIN.left} x2={width - MARGIN.right} y1={y(0)} y2={y(0)} />
            {meanPercent === null ? null : (
              <MeanMarker x={MARGIN.left + (Math.min(100, Math.max(0, meanPercent)) / 100) * plotWidth} top={MARGIN.top - 18} bottom={y(0)} label={`Mean ${formatPercent(meanPercent)}`} minX={MARGIN.left + 64} />
            )}
            {bands.map((band, index) => (
              <text key={band.from} className="chart__tick" x={MARGIN.left + index * slot} y={y(0) + 16} textAnchor="middle">
                {band.from}
              </text>
            ))}
            <text className="chart__tick" x={width - MARGIN.right} y={y(0) + 16} textAnchor="middle">
              100
            </text>
            <text className="chart__axis-title" x={MARGIN.left + plotWidth / 2} y={HEIGHT - 4} textAnchor="middle">
              Percentage of the total mark
            </text>
            <text className="chart__axis-title" x={4} y={MARGIN.top - 18}>
              Students
            </text>
          </svg>
        );
      }}
    </ChartFrame>
  );
}

/** The mean as a dashed vertical line with its label above the plot (kept clear of the "Students" title). */
function MeanMarker({ x, top, bottom, label, minX }: { x: number; top: number; bottom: number; label: string; minX: number }) {
  const anchorStart = x < minX;
  return (
    <g className="chart__mean">
      <line x1={x} x2={x} y1={top + 4} y2={bottom} />
      <text x={anchorStart ? x + 4 : x} y={top} textAnchor={anchorStart ? "start" : "middle"}>
        {label}
      </text>
    </g>
  );
}
