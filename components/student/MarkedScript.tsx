"use client";

import { useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import dynamic from "next/dynamic";
import Link from "next/link";
import { type RefObject, useEffect, useRef, useState } from "react";
import { Card } from "@/components/ui/Card";
import { EmptyState } from "@/components/ui/EmptyState";
import { LocalDate } from "@/components/ui/dates";
import { MarkedWorkIcon } from "@/components/ui/icons";
import { Loading } from "@/components/ui/Loading";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Table } from "@/components/ui/Table";
import { useTRPC } from "@/components/trpc/client";
import { errorCode } from "@/lib/trpc/errors";
import type { AppRouter } from "@/server/trpc/root";
import { AnnotationLayer, type ScriptQuestion } from "./AnnotationLayer";
import { formatMarks, marksInWords } from "./marks";
import { ScriptPdfLink } from "./ScriptPdfLink";
import { ReviewRequests } from "./ReviewRequests";
import { useReviewWindow } from "./review-window";

type MarkedScriptData = inferRouterOutputs<AppRouter>["student"]["scripts"]["get"];

// pdf.js cannot run on the server: the scan loads in the browser only.
const PdfPages = dynamic(() => import("@/components/templates/PdfPages"), {
  ssr: false,
  loading: () => <Loading>Loading the scan viewer…</Loading>,
});

/** The widest a page is drawn: wider columns leave margins. */
const MAX_PAGE_WIDTH = 820;

/** The width the pages fit, tracked as the window resizes: a phone's page is the phone's width. */
function useFitWidth(element: RefObject<HTMLDivElement | null>) {
  const [width, setWidth] = useState(0);
  useEffect(() => {
    const target = element.current;
    if (!target) return;
    const measure = () => {
      if (target.clientWidth > 0) setWidth(Math.min(MAX_PAGE_WIDTH, Math.floor(target.clientWidth)));
    };
    measure();
    const observer = new ResizeObserver(measure);
    observer.observe(target);
    return () => observer.disconnect();
  }, [element]);
  return width;
}

/** One released script: the total, what to revise, the marks per question, then every page with its marking. */
export function MarkedScript({ submissionId }: { submissionId: string }) {
  const trpc = useTRPC();
  const script = useQuery({ ...trpc.student.scripts.get.queryOptions({ submission_id: submissionId }), retry: (count, error) => errorCode(error) !== "NOT_FOUND" && count < 2 });
  if (script.isPending) return <Loading>Loading your script…</Loading>;
  if (script.isError) {
    if (errorCode(script.error) === "NOT_FOUND") {
      return (
        <EmptyState icon={<MarkedWorkIcon size={28} />} title="This script is not here" headingLevel={2}>
          <p>
            It is not one of your released scripts: its results may have been withdrawn, or the link is wrong. <Link href="/my-work">Back to my work</Link>
          </p>
        </EmptyState>
      );
    }
    return <LoadFailed what="Your script" error={script.error} onRetry={() => script.refetch()} />;
  }
  return <ScriptView script={script.data} />;
}

function ScriptView({ script }: { script: MarkedScriptData }) {
  return (
    <>
      <header className="page__header">
        <p className="my-script__back">
          <Link href="/my-work">← My work</Link>
        </p>
        <h1>{script.paper_title}</h1>
        <p className="page__lede">
          {script.batch_title !== script.paper_title ? `${script.batch_title} · ` : null}released <LocalDate value={script.released_at} />
        </p>
      </header>
      {script.scan.url ? <ScriptPdfLink submissionId={script.submission_id} /> : null}
      <div className="my-script__summary">
        <Card className="my-script__total">
          <p className="my-script__total-label">Your total</p>
          <p className="my-script__total-value" aria-label={`${formatMarks(script.total_awarded)} out of ${marksInWords(script.total_available)}`}>
            {formatMarks(script.total_awarded)} <span className="my-script__out-of">/ {formatMarks(script.total_available)}</span>
          </p>
          <ReviewWindowNote reviewsUntil={script.reviews_until} />
        </Card>
        <WhatToRevise points={script.what_to_revise} />
      </div>
      <QuestionTable questions={script.questions} />
      <ReviewRequests script={script} />
      <ScanPages script={script} />
    </>
  );
}

function WhatToRevise({ points }: { points: MarkedScriptData["what_to_revise"] }) {
  return (
    <Card title="What to revise" id="what-to-revise" description="The topics of the specification where you lost the most marks, most first.">
      {points.length === 0 ? (
        <p>Nothing stands out: you lost no marks on a question that names a topic.</p>
      ) : (
        <ol className="revise-list">
          {points.map((point) => (
            <li key={point.spec_ref}>
              <span className="revise-list__name">{point.name}</span>
              {point.name !== point.spec_ref ? <span className="revise-list__ref"> ({point.spec_ref})</span> : null}
              <span className="revise-list__lost">
                {" "}
                — lost {formatMarks(point.marks_lost)} of {marksInWords(point.marks_available)} on question{point.questions.length === 1 ? "" : "s"} {point.questions.join(", ")}
              </span>
            </li>
          ))}
        </ol>
      )}
    </Card>
  );
}

function QuestionTable({ questions }: { questions: ScriptQuestion[] }) {
  return (
    <Card title="Marks by question" id="marks-by-question">
      <Table caption="Your mark for each question, with the marker's comments">
        <thead>
          <tr>
            <th scope="col">Question</th>
            <th scope="col" className="numeric">
              Mark
            </th>
            <th scope="col">Feedback</th>
          </tr>
        </thead>
        <tbody>
          {questions.map((question) => (
            <tr key={question.id} data-question={question.label}>
              <th scope="row">{question.label}</th>
              <td className="numeric my-script__mark">
                {question.awarded_marks === null ? (
                  <span className="muted">Not marked</span>
                ) : (
                  <>
                    <span data-testid="awarded">{formatMarks(question.awarded_marks)}</span> / {formatMarks(question.max_marks)}
                  </>
                )}
              </td>
              <td className="my-script__feedback">
                {question.comment ? <p>{question.comment}</p> : null}
                {question.rubric_items.length > 0 ? (
                  <ul className="my-script__rubric" aria-label={`Marking points for question ${question.label}`}>
                    {question.rubric_items.map((item) => (
                      <li key={item.id}>
                        {item.text} <span className="muted">({item.points > 0 ? "+" : ""}{formatMarks(item.points)})</span>
                      </li>
                    ))}
                  </ul>
                ) : null}
                {!question.comment && question.rubric_items.length === 0 ? <span className="muted">—</span> : null}
              </td>
            </tr>
          ))}
        </tbody>
      </Table>
    </Card>
  );
}

/** Each page of the scan, the marking drawn over it, and under it the same marking in words. */
function ScanPages({ script }: { script: MarkedScriptData }) {
  const frame = useRef<HTMLDivElement>(null);
  const width = useFitWidth(frame);
  const overlay = (page: number) => <AnnotationLayer page={page} script={script} />;
  const after = (page: number) => <PageInWords page={page} script={script} />;
  return (
    <section className="my-script__pages" aria-labelledby="your-script-heading">
      <h2 id="your-script-heading">Your script, as marked</h2>
      <p className="muted">Ticks, crosses and notes are drawn where the marker put them; under each page they are listed in words.</p>
      <div className="my-script__frame" ref={frame}>
        {width === 0 ? null : script.scan.url ? (
          <PdfPages
            url={script.scan.url}
            width={width}
            renderOverlay={overlay}
            renderAfter={after}
            onPageCount={() => {}}
            loadingText="Loading your scan…"
            failure={{ title: "Your scan could not be displayed", text: "Reload the page. If it keeps failing, ask your teacher: your marks above are unaffected." }}
          />
        ) : (
          <div className="paper__document">
            <p className="muted">Your teacher has not uploaded a scan of this script: the marking is shown on blank pages.</p>
            {script.pages.map(({ page }) => (
              <div key={page}>
                <section className="paper__page paper__page--blank" aria-label={`Page ${page} of ${script.pages.length} (no scan)`} style={{ width, height: width * 1.414 }}>
                  {overlay(page)}
                </section>
                {after(page)}
              </div>
            ))}
          </div>
        )}
      </div>
    </section>
  );
}

/** What the marker left on one page, in words: the marks of its questions, then each annotation's text alternative. */
function PageInWords({ page, script }: { page: number; script: MarkedScriptData }) {
  const questions = script.questions.filter((question) => question.areas.some((area) => area.page === page));
  const annotations = script.pages.find((entry) => entry.page === page)?.annotations ?? [];
  if (questions.length === 0 && annotations.length === 0) return null;
  return (
    <div className="page-in-words" style={{ maxWidth: MAX_PAGE_WIDTH }}>
      <h3 className="page-in-words__title">On page {page}</h3>
      <ul>
        {questions.map((question) => (
          <li key={question.id}>
            Question {question.label}: {question.awarded_marks === null ? "not marked" : `${formatMarks(question.awarded_marks)} out of ${marksInWords(question.max_marks)}`}
            {question.comment ? ` — “${question.comment}”` : ""}
          </li>
        ))}
        {annotations.map((annotation) => (
          <li key={annotation.id}>{annotation.alt}</li>
        ))}
      </ul>
    </div>
  );
}

/** Under the total: until when the student may ask for a review, or since when they may not. */
function ReviewWindowNote({ reviewsUntil }: { reviewsUntil: string | null }) {
  const reviews = useReviewWindow(reviewsUntil);
  if (reviews.state === "none") return null;
  return (
    <p className="muted">
      {reviews.state === "open" ? "You can ask for a question to be looked at again until " : "Review requests closed on "}
      <LocalDate value={reviews.until} style="dateTime" />.
    </p>
  );
}
