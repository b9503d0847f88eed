"use client";

import { formatMarks, formatPercent, lowestIndex, type QuestionMean } from "./results-stats";
import { ChartFrame, PERCENT_TICKS, textWidth } from "./ChartFrame";

const PLOT_HEIGHT = 170;
const MARGIN = { top: 22, right: 8, left: 40 };
/** Narrower than this per question and the chart scrolls sideways instead of squeezing the bars. */
const MIN_SLOT = 14;
const LABEL_FONT = 12;

/** Mean percentage of each question as columns in paper order; the lowest stands out in colour and by name. */
export function QuestionMeansChart({ means }: { means: QuestionMean[] }) {
  const lowest = lowestIndex(means.map((m) => m.meanPercent));
  const lowestMean = lowest === -1 ? null : means[lowest]!;
  const anyMarked = means.some((m) => m.meanPercent !== null);
  const summary = lowestMean
    ? `Mean percentage of ${means.length} questions; lowest ${lowestMean.label} at ${formatPercent(lowestMean.meanPercent!)}. ` +
      means.map((m) => `${m.label}: ${m.meanPercent === null ? "no marks" : formatPercent(m.meanPercent)}`).join(", ")
    : "No question has marks yet.";

  return (
    <ChartFrame
      title="Mean percentage per question"
      className="chart--wide"
      description="Every mark recorded so far counts, scripts still being marked included. The weakest question is highlighted."
      emptyMessage={anyMarked ? undefined : "No question has a mark yet."}
      legend={
        lowestMean ? (
          <>
            <span className="chart__key chart__key--bar">Mean percentage</span>
            <span className="chart__key chart__key--lowest">
              Lowest: question {lowestMean.label}, {formatPercent(lowestMean.meanPercent!)}
            </span>
          </>
        ) : null
      }
      dataTable={
        <table>
          <caption>Mean mark of each question</caption>
          <thead>
            <tr>
              <th scope="col">Question</th>
              <th scope="col">Mean percentage</th>
              <th scope="col">Mean mark</th>
              <th scope="col">Marks recorded</th>
            </tr>
          </thead>
          <tbody>
            {means.map((m) => (
              <tr key={m.id}>
                <th scope="row">{m.label}</th>
                <td>{m.meanPercent === null ? "No marks" : formatPercent(m.meanPercent, true)}</td>
                <td>{m.meanMarks === null ? "–" : `${formatMarks(m.meanMarks)} of ${m.maxMarks ?? "?"}`}</td>
                <td>{m.count}</td>
              </tr>
            ))}
          </tbody>
        </table>
      }
    >
      {(width) => {
        const available = width - MARGIN.left - MARGIN.right;
        const slot = Math.max(MIN_SLOT, available / Math.max(1, means.length));
        const plotWidth = slot * means.length;
        const svgWidth = Math.max(width, plotWidth + MARGIN.left + MARGIN.right);
        const labelFont = slot < 20 ? 11 : LABEL_FONT;
        const longest = Math.max(...means.map((m) => textWidth(m.label, labelFont)));
        // Labels turn when they would touch their neighbours.
        const rotate = longest > slot - 4;
        const bottom = rotate ? Math.min(80, longest * 0.87 + 18) : 26;
        const height = MARGIN.top + PLOT_HEIGHT + bottom;
        const y = (percent: number) => MARGIN.top + PLOT_HEIGHT - (percent / 100) * PLOT_HEIGHT;
        const barWidth = Math.min(56, slot * 0.6);
        const showValues = slot >= 30;
        return (
          <div
            className="chart__scroll"
            // Too many questions for the width: the plot scrolls sideways, and a keyboard can scroll it too.
            {...(svgWidth > width ? { tabIndex: 0, role: "group", "aria-label": "Questions chart, scrolls sideways" } : {})}
          >
            <svg width={svgWidth} height={height} viewBox={`0 0 ${svgWidth} ${height}`} role="img" aria-label={summary}>
              {PERCENT_TICKS.map((tick) => (
                <g key={tick}>
                  <line className="chart__grid" x1={MARGIN.left} x2={MARGIN.left + plotWidth} y1={y(tick)} y2={y(tick)} />
                  <text className="chart__tick" x={MARGIN.left - 6} y={y(tick)} dy="0.32em" textAnchor="end">
                    {tick}%
                  </text>
                </g>
              ))}
              {means.map((m, index) => {
                const centre = MARGIN.left + index * slot + slot / 2;
                const labelY = y(0) + 16;
                return (
                  <g key={m.id}>
                    {m.meanPercent === null ? (
                      <text className="chart__missing" x={centre} y={y(0) - 6} textAnchor="middle">
                        –<title>{`Question ${m.label}: no marks yet`}</title>
                      </text>
                    ) : (
                      <>
                        <rect
                          className={index === lowest ? "chart__bar chart__bar--lowest" : "chart__bar"}
                          x={centre - barWidth / 2}
                          y={y(m.meanPercent)}
                          width={barWidth}
                          height={Math.max(1, y(0) - y(m.meanPercent))}
                          rx={2}
                        >
                          <title>{`Question ${m.label}: ${formatPercent(m.meanPercent, true)} (mean ${formatMarks(m.meanMarks!)} of ${m.maxMarks}, ${m.count} marked)`}</title>
                        </rect>
                        {showValues ? (
                          <text className={index === lowest ? "chart__value chart__value--lowest" : "chart__value"} x={centre} y={y(m.meanPercent) - 5} textAnchor="middle">
                            {formatPercent(m.meanPercent)}
                          </text>
                        ) : null}
                      </>
                    )}
                    <text
                      className={index === lowest ? "chart__label chart__label--lowest" : "chart__label"}
                      x={centre}
                      y={labelY}
                      textAnchor={rotate ? "end" : "middle"}
                      fontSize={labelFont}
                      transform={rotate ? `rotate(-60 ${centre} ${labelY - 4})` : undefined}
                    >
                      {m.label}
                    </text>
                  </g>
                );
              })}
              <line className="chart__axis" x1={MARGIN.left} x2={MARGIN.left + plotWidth} y1={y(0)} y2={y(0)} />
            </svg>
          </div>
        );
      }}
    </ChartFrame>
  );
}
