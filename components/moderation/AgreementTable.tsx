"use client";

import { Table } from "@/components/ui/Table";
import type { inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/root";
import { driftText, kappaText, percent, signedMarks } from "./agreement-format";

type Agreement = inferRouterOutputs<AppRouter>["exam"]["moderation"]["agreement"];
type Row = Agreement["questions"][number];

function StatCells({ row }: { row: Omit<Row, "question_id" | "label" | "max_marks"> }) {
  const kappa = kappaText(row.kappa, row.kappa_note);
  return (
    <>
      <td className="numeric">{row.n}</td>
      <td className="numeric">{signedMarks(row.mean_difference)}</td>
      <td className="numeric">{row.mean_absolute_difference === null ? "–" : Math.round(row.mean_absolute_difference * 100) / 100}</td>
      <td className="numeric">{percent(row.within_tolerance)}</td>
      <td className="numeric">
        {kappa.value} <span className="table__muted">{kappa.words}</span>
      </td>
      <td>{driftText(row.drift_per_10)}</td>
    </>
  );
}

function Headings({ first }: { first: string }) {
  return (
    <thead>
      <tr>
        <th scope="col">{first}</th>
        <th scope="col" className="numeric">
          Pairs
        </th>
        <th scope="col" className="numeric" title="Second mark − first mark, on average">
          Mean difference
        </th>
        <th scope="col" className="numeric">
          Mean |difference|
        </th>
        <th scope="col" className="numeric">
          Within tolerance
        </th>
        <th scope="col" className="numeric" title="Quadratic-weighted Cohen's kappa">
          Kappa
        </th>
        <th scope="col">Drift</th>
      </tr>
    </thead>
  );
}

/** Agreement of first and second marks, per question and per first marker. */
export function AgreementTable({ agreement }: { agreement: Agreement }) {
  if (agreement.questions.length === 0) return <p className="muted">No second marks yet: agreement appears as scripts of the sample are second-marked.</p>;
  return (
    <div className="moderation__agreement">
      <p className="muted">
        Tolerance: {agreement.tolerance} mark{agreement.tolerance === 1 ? "" : "s"}. A positive difference means the second marker gave more. Kappa is
        quadratic-weighted (1: full agreement, 0: no better than chance); drift is the trend of the difference over the first marker&rsquo;s session.
      </p>
      <Table caption="Agreement per question">
        <Headings first="Question" />
        <tbody>
          {agreement.questions.map((row) => (
            <tr key={row.question_id}>
              <th scope="row">
                {row.label} <span className="table__muted">out of {row.max_marks ?? "–"}</span>
              </th>
              <StatCells row={row} />
            </tr>
          ))}
        </tbody>
      </Table>
      <Table caption="Agreement per first marker">
        <Headings first="First marker" />
        <tbody>
          {agreement.markers.map((row) => (
            <tr key={row.marker_id ?? "unknown"}>
              <th scope="row">{row.marker_name ?? "A former member of staff"}</th>
              <StatCells row={row} />
            </tr>
          ))}
        </tbody>
      </Table>
    </div>
  );
}
