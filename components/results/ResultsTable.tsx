"use client";

import { useMemo, useState } from "react";
import { SubmissionStateBadge } from "@/components/batches/SubmissionStateBadge";
import { submissionState } from "@/lib/rules/submission-state";
import {
  formatMarks,
  formatPercent,
  withMarksEntered,
  mean,
  percentOf,
  shownTotal,
  sortRows,
  type QuestionMean,
  type ResultRow,
  type ResultsQuestion,
  type SortDirection,
  type SortKey,
} from "./results-stats";

interface ResultsTableProps {
  questions: ResultsQuestion[];
  rows: ResultRow[];
  maxTotal: number;
  questionMeans: QuestionMean[];
  /** Percentages of the fully marked scripts, for the mean in the footer. */
  markedPercentages: number[];
  /** "hidden" for an anonymous batch not revealed: rows are scripts ("Script 17"), sorted by number. */
  names: "shown" | "hidden";
  /**
   * An anonymous batch whose owner revealed the names: each name comes with its script's number, the
   * list the owner hands the scripts out by (they are printed without names).
   */
  withScriptNumbers?: boolean;
}

const sameKey = (a: SortKey, b: SortKey) => a.by === b.by && (a.by !== "question" || (b.by === "question" && a.questionId === b.questionId));

/** Students × questions with total and percentage; every column header sorts (click or Enter/Space). */
export function ResultsTable({ questions, rows, maxTotal, questionMeans, markedPercentages, names, withScriptNumbers = false }: ResultsTableProps) {
  const [sort, setSort] = useState<{ key: SortKey; direction: SortDirection }>({ key: { by: "name" }, direction: "ascending" });
  const sorted = useMemo(() => sortRows(rows, questions, sort.key, sort.direction), [rows, questions, sort]);

  // A new column starts A→Z for names and highest first for marks; the same column flips.
  const sortBy = (key: SortKey) =>
    setSort((current) =>
      sameKey(current.key, key)
        ? { key, direction: current.direction === "ascending" ? "descending" : "ascending" }
        : { key, direction: key.by === "name" ? "ascending" : "descending" },
    );
  const ariaSort = (key: SortKey) => (sameKey(sort.key, key) ? sort.direction : undefined);

  const meanMarkedTotal = mean(markedPercentages.map((p) => (p / 100) * maxTotal));
  const meanMarkedPercent = mean(markedPercentages);

  return (
    <div className="table-wrap results-table-wrap">
      <table className="table results-table">
        <caption className="visually-hidden">Marks of each student by question, with total and percentage. Column headers sort the table.</caption>
        <thead>
          <tr>
            <th scope="col" className="results-table__student" aria-sort={ariaSort({ by: "name" })}>
              <SortButton label={names === "hidden" ? "Script" : "Student"} active={sameKey(sort.key, { by: "name" })} direction={sort.direction} onClick={() => sortBy({ by: "name" })} />
            </th>
            <th scope="col" className="numeric" aria-sort={ariaSort({ by: "total" })}>
              <SortButton
                label="Total"
                outOf={maxTotal}
                active={sameKey(sort.key, { by: "total" })}
                direction={sort.direction}
                onClick={() => sortBy({ by: "total" })}
              />
            </th>
            <th scope="col" className="numeric results-table__percent">
              <span className="results-table__static-head">%</span>
            </th>
            {questions.map((question) => {
              const key: SortKey = { by: "question", questionId: question.id };
              return (
                <th key={question.id} scope="col" className="numeric" aria-sort={ariaSort(key)}>
                  <SortButton
                    label={question.label}
                    hiddenPrefix="Question "
                    outOf={question.max_marks}
                    active={sameKey(sort.key, key)}
                    direction={sort.direction}
                    onClick={() => sortBy(key)}
                  />
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {sorted.map((row) => {
            const facts = withMarksEntered(row, questions);
            const state = submissionState(facts);
            const total = shownTotal(row, questions);
            const percent = percentOf(total, maxTotal);
            // No script to mark: blank cells, never a 0 or a "not marked" dash.
            const absent = state === "absent" || state === "no_scan";
            return (
              <tr key={row.submission_id} data-testid="results-row" data-state={state} className={`results-row results-row--${absent ? "absent" : state}`}>
                <th scope="row" className="results-table__student">
                  <span className="results-table__name">
                    {names === "hidden" ? (
                      <>
                        Script {row.script_number}
                        {row.has_student ? null : <span className="table__muted"> (no student yet)</span>}
                      </>
                    ) : (
                      <>
                        {row.student_name ?? <span className="table__muted">Unmatched scan</span>}
                        {withScriptNumbers ? <span className="table__muted"> · Script {row.script_number}</span> : null}
                      </>
                    )}
                  </span>
                  {state !== "marked" ? <SubmissionStateBadge submission={facts} progress={{ marked: facts.marks_entered, of: questions.length }} /> : null}
                </th>
                <td className="numeric results-table__total" data-testid="results-total">
                  {total === null ? absent ? null : <NotMarked /> : formatMarks(total)}
                </td>
                <td className="numeric results-table__percent" data-testid="results-percent">
                  {percent === null ? null : formatPercent(percent)}
                </td>
                {questions.map((question) => {
                  const value = row.marks[question.id];
                  return (
                    <td key={question.id} className="numeric">
                      {absent ? null : value === null || value === undefined ? <NotMarked /> : formatMarks(value)}
                    </td>
                  );
                })}
              </tr>
            );
          })}
        </tbody>
        <tfoot>
          <tr>
            <th scope="row" className="results-table__student">
              Mean
            </th>
            <td className="numeric">{meanMarkedTotal === null ? null : formatMarks(meanMarkedTotal)}</td>
            <td className="numeric results-table__percent">{meanMarkedPercent === null ? null : formatPercent(meanMarkedPercent)}</td>
            {questionMeans.map((m) => (
              <td key={m.id} className="numeric">
                {m.meanMarks === null ? null : formatMarks(m.meanMarks)}
              </td>
            ))}
          </tr>
        </tfoot>
      </table>
    </div>
  );
}

/** A cell nobody has marked yet: a dash, never a 0. */
function NotMarked() {
  return (
    <span className="results-table__unmarked">
      <span aria-hidden="true">–</span>
      <span className="visually-hidden">not marked</span>
    </span>
  );
}

interface SortButtonProps {
  label: string;
  hiddenPrefix?: string;
  outOf?: number | null;
  active: boolean;
  direction: SortDirection;
  onClick: () => void;
}

function SortButton({ label, hiddenPrefix, outOf, active, direction, onClick }: SortButtonProps) {
  return (
    <button type="button" className={`sort-button${active ? " sort-button--active" : ""}`} onClick={onClick}>
      <span className="sort-button__text">
        {hiddenPrefix ? <span className="visually-hidden">{hiddenPrefix}</span> : null}
        {label}
        {outOf !== undefined && outOf !== null ? (
          <span className="sort-button__max">
            <span className="visually-hidden"> out of </span>
            <span aria-hidden="true">/</span>
            {formatMarks(outOf)}
          </span>
        ) : null}
      </span>
      <SortArrow active={active} direction={direction} />
    </button>
  );
}

function SortArrow({ active, direction }: { active: boolean; direction: SortDirection }) {
  return (
    <svg className="sort-button__arrow" width="10" height="14" viewBox="0 0 10 14" aria-hidden="true" focusable="false">
      <path d="M5 1 L9 5 H1 Z" className={active && direction === "ascending" ? "sort-button__arrow-on" : undefined} />
      <path d="M5 13 L9 9 H1 Z" className={active && direction === "descending" ? "sort-button__arrow-on" : undefined} />
    </svg>
  );
}
