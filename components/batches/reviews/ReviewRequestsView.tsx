"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import Link from "next/link";
import { type FormEvent, useId, useState } from "react";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { EmptyState } from "@/components/ui/EmptyState";
import { MarkedWorkIcon } from "@/components/ui/icons";
import { LocalDate } from "@/components/ui/dates";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Loading } from "@/components/ui/Loading";
import { Status } from "@/components/ui/Status";
import { formatMarks } from "@/components/student/marks";
import { useTRPC } from "@/components/trpc/client";
import { errorCode, errorMessage } from "@/lib/trpc/errors";
import type { AppRouter } from "@/server/trpc/root";

type QueuedRequest = inferRouterOutputs<AppRouter>["exam"]["reviews"]["queue"]["requests"][number];

/** The longest reply the server takes (server/exam/returns/review-requests.ts). */
const REPLY_MAX = 2000;

/**
 * A batch's review requests that the viewer answers (exam.reviews.queue): open first, oldest first; each
 * with the script as the batch names it, the question, the mark before and its maximum, the student's
 * reason and, while open, the answer form (keep or change the mark, a reply).
 */
export function ReviewRequestsView({ batchId }: { batchId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const queue = useQuery(trpc.exam.reviews.queue.queryOptions({ batch_id: batchId }));
  /** The server's sentence when an answer did not apply (answered meanwhile), shown over the list read again. */
  const [conflict, setConflict] = useState<string | null>(null);
  const [answered, setAnswered] = useState<string | null>(null);

  const reload = async () => {
    await queryClient.invalidateQueries({ queryKey: trpc.exam.reviews.queue.queryKey() });
  };

  const header = (title?: string) => (
    <header className="page__header">
      <Link href={`/batches/${batchId}`} className="back-link">
        ← {title ?? "Batch"}
      </Link>
      <h1>Review requests</h1>
      <p className="page__lede">Students ask for a question to be looked at again. Keep or change the mark, and reply: the student sees your answer on their script.</p>
    </header>
  );

  if (queue.isPending) return (<>{header()}<Loading>Loading the review requests…</Loading></>);
  if (queue.isError) return (<>{header()}<LoadFailed what="The review requests" error={queue.error} onRetry={() => queue.refetch()} /></>);
  const requests = queue.data.requests;
  const open = requests.filter((request) => request.status === "open");
  const done = requests.filter((request) => request.status === "answered");

  return (
    <>
      {header(requests[0]?.batch_title)}
      {conflict ? (
        <Status tone="warning" title="Your answer was not saved" role="alert">
          {conflict}
        </Status>
      ) : null}
      {answered ? <Status tone="success" title="Answer sent">{answered}</Status> : null}
      {requests.length === 0 ? (
        <EmptyState icon={<MarkedWorkIcon size={28} />} title="No review requests" headingLevel={2}>
          <p>No student has asked for a question of this batch to be looked at again, or none of their requests is yours to answer.</p>
        </EmptyState>
      ) : null}
      {open.length > 0 ? (
        <section aria-labelledby="open-reviews-heading" className="reviews-queue">
          <h2 id="open-reviews-heading" className="section-heading">Open ({open.length})</h2>
          {open.map((request) => (
            <RequestCard key={request.id} request={request}>
              <AnswerForm
                request={request}
                onAnswered={async (sentence) => {
                  setConflict(null);
                  setAnswered(sentence);
                  await reload();
                }}
                onConflict={async (sentence) => {
                  setAnswered(null);
                  setConflict(sentence);
                  await reload();
                }}
              />
            </RequestCard>
          ))}
        </section>
      ) : null}
      {done.length > 0 ? (
        <section aria-labelledby="answered-reviews-heading" className="reviews-queue">
          <h2 id="answered-reviews-heading" className="section-heading">Answered ({done.length})</h2>
          {done.map((request) => (
            <RequestCard key={request.id} request={request}>
              <p>
                <strong>
                  {request.outcome === "changed"
                    ? `Changed from ${markOf(request.marks_before)} to ${markOf(request.marks_after)}`
                    : `Kept at ${markOf(request.marks_before)}`}
                </strong>
                {request.answered_at ? (
                  <span className="muted">
                    {" "}
                    · <LocalDate value={request.answered_at} style="dateTime" />
                  </span>
                ) : null}
              </p>
              {request.reply ? <p>Reply: “{request.reply}”</p> : null}
            </RequestCard>
          ))}
        </section>
      ) : null}
    </>
  );
}

const markOf = (value: number | null) => (value === null ? "no mark" : formatMarks(value));

function RequestCard({ request, children }: { request: QueuedRequest; children: React.ReactNode }) {
  const headingId = `review-${request.id}`;
  return (
    <article className="card review-card" aria-labelledby={headingId} data-testid="review-card" data-status={request.status}>
      <header className="review-card__header">
        <h3 id={headingId}>
          {request.script}, question {request.question_label}
        </h3>
        <Badge tone={request.status === "open" ? "danger" : "neutral"}>{request.status === "open" ? "Open" : "Answered"}</Badge>
      </header>
      <dl className="review-card__facts">
        <div>
          <dt>Mark when asked</dt>
          <dd>
            {markOf(request.marks_before)}
            {request.max_marks !== null ? ` / ${formatMarks(request.max_marks)}` : ""}
          </dd>
        </div>
        <div>
          <dt>Asked</dt>
          <dd>
            <LocalDate value={request.created_at} style="dateTime" />
          </dd>
        </div>
        {request.assigned_to_name ? (
          <div>
            <dt>Goes to</dt>
            <dd>{request.assigned_to_name}</dd>
          </div>
        ) : null}
      </dl>
      <blockquote className="review-card__reason">
        <p>{request.reason}</p>
      </blockquote>
      {children}
    </article>
  );
}

function AnswerForm({
  request,
  onAnswered,
  onConflict,
}: {
  request: QueuedRequest;
  onAnswered: (sentence: string) => Promise<void>;
  onConflict: (sentence: string) => Promise<void>;
}) {
  const trpc = useTRPC();
  const answer = useMutation(trpc.exam.reviews.answer.mutationOptions());
  const id = useId();
  const [outcome, setOutcome] = useState<"kept" | "changed">("kept");
  const [mark, setMark] = useState(request.marks_before === null ? "" : String(request.marks_before));
  const [reply, setReply] = useState("");
  const [problems, setProblems] = useState<{ mark?: string; reply?: string }>({});
  const max = request.max_marks;
  const subject = `${request.script}, question ${request.question_label}`;

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const found: { mark?: string; reply?: string } = {};
    const newMark = Number(mark);
    if (outcome === "changed") {
      if (mark.trim() === "" || !Number.isFinite(newMark) || newMark < 0) found.mark = "Give the new mark: a number from 0.";
      else if (max !== null && newMark > max) found.mark = `The question is out of ${formatMarks(max)}.`;
    }
    if (reply.trim() === "") found.reply = "Write a reply to the student.";
    setProblems(found);
    if (found.mark || found.reply) return;
    try {
      const result = await answer.mutateAsync({ request_id: request.id, outcome, reply: reply.trim(), ...(outcome === "changed" ? { awarded_marks: newMark } : {}) });
      await onAnswered(
        result.outcome === "changed"
          ? `${subject}: the mark changed from ${markOf(result.marks_before)} to ${markOf(result.marks_after)}. The student sees your reply on their script.`
          : `${subject}: the mark is kept. The student sees your reply on their script.`,
      );
    } catch (error) {
      if (errorCode(error) === "CONFLICT") await onConflict(errorMessage(error));
    }
  };

  return (
    <form className="review-answer form-stack" onSubmit={(event) => void submit(event)} noValidate aria-label={`Answer: ${subject}`}>
      <fieldset className="review-answer__outcome">
        <legend className="field__label">Your answer</legend>
        <label className="checkbox">
          <input type="radio" name={`${id}-outcome`} checked={outcome === "kept"} onChange={() => setOutcome("kept")} />
          Keep the mark
        </label>
        <label className="checkbox">
          <input type="radio" name={`${id}-outcome`} checked={outcome === "changed"} onChange={() => setOutcome("changed")} />
          Change the mark
        </label>
      </fieldset>
      {outcome === "changed" ? (
        <div className="field field--narrow">
          <label className="field__label" htmlFor={`${id}-mark`}>
            New mark{max !== null ? ` (out of ${formatMarks(max)})` : ""}
          </label>
          <input
            id={`${id}-mark`}
            className="input"
            type="number"
            inputMode="decimal"
            min={0}
            max={max ?? undefined}
            step="any"
            value={mark}
            aria-invalid={problems.mark ? true : undefined}
            aria-describedby={problems.mark ? `${id}-mark-error` : undefined}
            onChange={(event) => setMark(event.currentTarget.value)}
          />
          {problems.mark ? (
            <p className="field__error" id={`${id}-mark-error`}>
              {problems.mark}
            </p>
          ) : null}
        </div>
      ) : null}
      <div className="field">
        <label className="field__label" htmlFor={`${id}-reply`}>
          Reply to the student
        </label>
        <textarea
          id={`${id}-reply`}
          className="input"
          rows={3}
          maxLength={REPLY_MAX}
          value={reply}
          aria-invalid={problems.reply ? true : undefined}
          aria-describedby={`${id}-reply-hint${problems.reply ? ` ${id}-reply-error` : ""}`}
          onChange={(event) => setReply(event.currentTarget.value)}
        />
        <p className="field__hint" id={`${id}-reply-hint`}>
          {REPLY_MAX - reply.length} of {REPLY_MAX} characters left.
        </p>
        {problems.reply ? (
          <p className="field__error" id={`${id}-reply-error`}>
            {problems.reply}
          </p>
        ) : null}
      </div>
      {answer.isError && errorCode(answer.error) !== "CONFLICT" ? (
        <Status tone="error" title="Answer not sent">
          {errorMessage(answer.error)}
        </Status>
      ) : null}
      <div>
        <Button type="submit" loading={answer.isPending} loadingLabel="Sending…">
          Send answer
        </Button>
      </div>
    </form>
  );
}
