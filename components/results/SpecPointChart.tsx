"use client";

import { commonSpecPrefix, formatMarks, formatPercent, lowestIndex, type SpecPointMean } from "./results-stats";
import { ChartFrame, PERCENT_TICKS, textWidth } from "./ChartFrame";

const ROW = 30;
const BAR = 18;
const MARGIN = { top: 8, right: 48, bottom: 24 };
const LABEL_FONT = 13;
const NO_SPEC_POINT = "No spec point";

/** Mean percentage per specification point as horizontal bars, in spec order; the weakest point highlighted. */
export function SpecPointChart({ points }: { points: SpecPointMean[] }) {
  const refs = points.flatMap((p) => (p.specRef === null ? [] : [p.specRef]));
  const prefix = commonSpecPrefix(refs);
  const name = (point: SpecPointMean) => (point.specRef === null ? NO_SPEC_POINT : point.specRef.slice(prefix.length));
  const specOnly = points.map((p) => (p.specRef === null ? null : p.meanPercent));
  const lowest = lowestIndex(specOnly);
  const lowestPoint = lowest === -1 ? null : points[lowest]!;
  const anyMarked = points.some((p) => p.meanPercent !== null);

  const emptyMessage =
    refs.length === 0
      ? "No question has a specification point. Add them to the questions in the template editor (spec ref)."
      : !anyMarked
        ? "No question has a mark yet."
        : undefined;
  const summary = points
    .map((p) => `${name(p)}: ${p.meanPercent === null ? "no marks" : formatPercent(p.meanPercent)}`)
    .join(", ");

  return (
    <ChartFrame
      title="Mean percentage per specification point"
      description={
        <>
          Marks awarded out of marks available over the questions of each point{prefix ? <> of {prefix.replace(/\/$/, "")}</> : null}. A part
          without its own point counts under its question&apos;s; questions with none are grouped as &ldquo;{NO_SPEC_POINT}&rdquo;.
        </>
      }
      emptyMessage={emptyMessage}
      legend={
        lowestPoint ? (
          <>
            <span className="chart__key chart__key--bar">Mean percentage</span>
            <span className="chart__key chart__key--lowest">
              Lowest: {name(lowestPoint)}, {formatPercent(lowestPoint.meanPercent!)}
            </span>
            {points.some((p) => p.specRef === null) ? <span className="chart__key chart__key--none">{NO_SPEC_POINT}</span> : null}
          </>
        ) : null
      }
      dataTable={
        <table>
          <caption>Mean percentage per specification point</caption>
          <thead>
            <tr>
              <th scope="col">Specification point</th>
              <th scope="col">Questions</th>
              <th scope="col">Mean percentage</th>
              <th scope="col">Marks awarded of available</th>
            </tr>
          </thead>
          <tbody>
            {points.map((p) => (
              <tr key={p.specRef ?? ""}>
                <th scope="row">{p.specRef ?? NO_SPEC_POINT}</th>
                <td>{p.questionLabels.join(", ")}</td>
                <td>{p.meanPercent === null ? "No marks" : formatPercent(p.meanPercent, true)}</td>
                <td>{p.count === 0 ? "–" : `${formatMarks(p.awarded)} of ${formatMarks(p.possible)}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      {(width) => {
        const labelWidth = Math.min(width * 0.4, Math.max(56, ...points.map((p) => textWidth(name(p), LABEL_FONT))) + 12);
        const left = labelWidth;
        const plotWidth = Math.max(40, width - left - MARGIN.right);
        const height = MARGIN.top + points.length * ROW + MARGIN.bottom;
        const x = (percent: number) => left + (percent / 100) * plotWidth;
        const maxChars = Math.floor((labelWidth - 12) / (LABEL_FONT * 0.6));
        return (
          <svg width={width} height={height} viewBox={`0 0 ${width} ${height}`} role="img" aria-label={`Mean percentage per specification point: ${summary}`}>
            {PERCENT_TICKS.map((tick) => (
              <g key={tick}>
                <line className="chart__grid" x1={x(tick)} x2={x(tick)} y1={MARGIN.top} y2={height - MARGIN.bottom} />
                <text className="chart__tick" x={x(tick)} y={height - MARGIN.bottom + 16} textAnchor="middle">
                  {tick}%
                </text>
              </g>
            ))}
            {points.map((p, index) => {
              const rowTop = MARGIN.top + index * ROW;
              const centre = rowTop + ROW / 2;
              const label = name(p);
              const shown = label.length > maxChars ? `${label.slice(0, Math.max(1, maxChars - 1))}…` : label;
              const tone = p.specRef === null ? " chart__bar--none" : index === lowest ? " chart__bar--lowest" : "";
              return (
                <g key={p.specRef ?? ""}>
                  <text
                    className={`chart__label${p.specRef === null ? " chart__label--none" : index === lowest ? " chart__label--lowest" : ""}`}
                    x={left - 10}
                    y={centre}
                    dy="0.32em"
                    textAnchor="end"
                  >
                    {shown}
                    <title>{`${p.specRef ?? NO_SPEC_POINT}: questions ${p.questionLabels.join(", ")}`}</title>
                  </text>
                  {p.meanPercent === null ? (
                    <text className="chart__missing" x={left + 6} y={centre} dy="0.32em">
                      no marks yet
                    </text>
                  ) : (
                    <>
                      <rect className={`chart__bar${tone}`} x={left} y={centre - BAR / 2} width={Math.max(1, x(p.meanPercent) - left)} height={BAR} rx={2}>
                        <title>{`${p.specRef ?? NO_SPEC_POINT}: ${formatPercent(p.meanPercent, true)} (${formatMarks(p.awarded)} of ${formatMarks(p.possible)} marks; questions ${p.questionLabels.join(", ")})`}</title>
                      </rect>
                      <text className={index === lowest ? "chart__value chart__value--lowest" : "chart__value"} x={x(p.meanPercent) + 6} y={centre} dy="0.32em">
                        {formatPercent(p.meanPercent)}
                      </text>
                    </>
                  )}
                </g>
              );
            })}
            <line className="chart__axis" x1={left} x2={left} y1={MARGIN.top} y2={height - MARGIN.bottom} />
          </svg>
        );
      }}
    </ChartFrame>
  );
}
