"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { Button, buttonClassName } from "@/components/ui/Button";
import { EmptyState } from "@/components/ui/EmptyState";
import { BatchIcon } from "@/components/ui/icons";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Loading } from "@/components/ui/Loading";
import { useTRPC } from "@/components/trpc/client";
import { ResultsAgreement } from "@/components/moderation/ResultsAgreement";
import { QuestionMeansChart } from "./QuestionMeansChart";
import { ResultsSummary } from "./ResultsSummary";
import { ResultsTable } from "./ResultsTable";
import { SpecPointChart } from "./SpecPointChart";
import { TotalsHistogram } from "./TotalsHistogram";
import { histogramBands, markedCount, questionMeans, specPointMeans, summarize } from "./results-stats";
import "./results.css";

/** Results refresh while colleagues mark, as the batch page's queue does (slower: nobody watches them tick). */
const RESULTS_REFRESH_MS = 15_000;

/** The Results page of a batch: summary, three charts and the students × questions table. */
export function ResultsView({ batchId, viewerId }: { batchId: string; viewerId: string }) {
  const trpc = useTRPC();
  // An anonymous batch's owner may ask for the names; nobody else is offered it (the server refuses them).
  const [reveal, setReveal] = useState(false);
  const results = useQuery({
    ...trpc.exam.batches.results.queryOptions({ batch_id: batchId, reveal_names: reveal }),
    refetchInterval: RESULTS_REFRESH_MS,
    placeholderData: (previous) => previous,
  });
  const templateId = results.data?.batch.template_id;
  const template = useQuery({ ...trpc.exam.templates.get.queryOptions({ template_id: templateId ?? "" }), enabled: Boolean(templateId), staleTime: 5 * 60_000 });

  const derived = useMemo(() => {
    if (!results.data) return null;
    const { questions, results: rows } = results.data;
    return {
      summary: summarize(rows, questions),
      means: questionMeans(questions, rows),
      anyMark: rows.some((row) => markedCount(row, questions) > 0),
    };
  }, [results.data]);
  const specPoints = useMemo(
    () => (results.data && template.data ? specPointMeans(results.data.questions, template.data.questions, results.data.results) : []),
    [results.data, template.data],
  );

  if (results.isPending) {
    return <Loading>Loading the results…</Loading>;
  }
  if (results.isError || !derived) {
    return (
      <div className="results">
        <Link href={`/batches/${batchId}`} className="back-link">
          ← Batch
        </Link>
        <h1>Results</h1>
        <LoadFailed what="The results" error={results.error} onRetry={() => results.refetch()} />
      </div>
    );
  }

  const { batch, questions, results: rows, names } = results.data;
  const canReveal = batch.anonymous && batch.teacher_id === viewerId;
  const { summary, means, anyMark } = derived;
  const toMark = rows.find((row) => row.status === "matched" || row.status === "marking" || row.status === "unmatched");
  const markingHref = toMark ? `/batches/${batchId}/mark?submission=${toMark.submission_id}` : null;
  // The teacher's export (the school's shape: its ids, surname and first name, blank totals until marked),
  // with the names the page shows; the contract's CSV (docs/spec/classroom-api.md) stays at /csv for tools.
  const revealQuery = reveal && canReveal ? "?reveal_names=true" : "";
  const downloads = (
    <>
      <a className={buttonClassName({ variant: "secondary" })} href={`/api/exam/batches/${batchId}/export/xlsx${revealQuery}`} download>
        Download results (Excel)
      </a>
      <a className={buttonClassName({ variant: "secondary" })} href={`/api/exam/batches/${batchId}/export/csv${revealQuery}`} download>
        Download results (CSV)
      </a>
    </>
  );

  return (
    <div className="results">
      <header className="page__header">
        <Link href={`/batches/${batchId}`} className="back-link">
          ← {batch.title}
        </Link>
        <h1>Results</h1>
        <p className="page__lede">
          {batch.title}
          {template.data && template.data.title !== batch.title ? <> · {template.data.title}</> : null}
        </p>
        <div className="batch__actions">
          {markingHref && anyMark ? (
            <Link className={buttonClassName({ variant: "secondary" })} href={markingHref}>
              Continue marking
            </Link>
          ) : null}
          {canReveal ? (
            <Button variant="secondary" onClick={() => setReveal((shown) => !shown)} loading={results.isFetching && reveal !== (names === "shown")} loadingLabel="Loading…">
              {reveal ? "Hide names" : "Reveal names"}
            </Button>
          ) : null}
          {downloads}
        </div>
        {batch.anonymous ? (
          <p className="muted">
            {names === "shown"
              ? "Anonymous marking: the names are shown to you only, on this page, each with its script's number (printed scripts carry no names); markers still see script numbers."
              : canReveal
                ? "Anonymous marking: scripts are shown by number. Only you, the batch's owner, can reveal the names."
                : "Anonymous marking: scripts are shown by number. Only the batch's owner can reveal the names."}
          </p>
        ) : null}
      </header>

      {!anyMark ? (
        <EmptyState icon={<BatchIcon size={28} />} title="No marks yet">
          <p>Results, totals and charts appear here as soon as the first script is marked.</p>
          {markingHref ? (
            <Link className={buttonClassName({})} href={markingHref}>
              Start marking
            </Link>
          ) : (
            <p>
              No script has been scanned into this batch yet. <Link href={`/batches/${batchId}`}>Upload the scans on the batch page</Link>, then mark
              them.
            </p>
          )}
        </EmptyState>
      ) : (
        <>
          <ResultsSummary summary={summary} />

          <section className="results__charts" aria-labelledby="results-charts-heading">
            <h2 id="results-charts-heading" className="visually-hidden">
              Charts
            </h2>
            <TotalsHistogram
              bands={histogramBands(summary.markedPercentages)}
              maxTotal={summary.maxTotal}
              meanPercent={summary.meanPercent}
              markedCount={summary.counts.marked}
              withoutScriptCount={summary.counts.absent + summary.counts.no_scan}
              unfinishedCount={summary.counts.not_marked + summary.counts.being_marked + summary.counts.needs_student}
            />
            {template.isError ? (
              <div className="chart">
                <LoadFailed what="The specification points" error={template.error} onRetry={() => template.refetch()} />
              </div>
            ) : template.isPending ? (
              <Loading className="chart">Loading the specification points…</Loading>
            ) : (
              <SpecPointChart points={specPoints} />
            )}
            <QuestionMeansChart means={means} />
          </section>

          <section className="results__table" aria-labelledby="results-table-heading">
            <div className="section-heading">
              <h2 id="results-table-heading">{names === "hidden" ? "Marks by script" : "Marks by student"}</h2>
              <p className="muted results__legend">
                <span aria-hidden="true">–</span> not marked yet · blank row: no scan yet, or absent
              </p>
            </div>
            <ResultsTable names={names} withScriptNumbers={batch.anonymous && names === "shown"} questions={questions} rows={rows} maxTotal={summary.maxTotal} questionMeans={means} markedPercentages={summary.markedPercentages} />
            <p className="results__note">
              Mean row: the total and percentage of the fully marked scripts; each question over every mark recorded so far.
            </p>
          </section>
          <ResultsAgreement batchId={batchId} />
        </>
      )}
    </div>
  );
}
