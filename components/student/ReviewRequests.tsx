"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useEffect, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { FormDialog } from "@/components/ui/FormDialog";
import { LocalDate } from "@/components/ui/dates";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Status } from "@/components/ui/Status";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import type { AppRouter } from "@/server/trpc/root";
import { formatMarks } from "./marks";
import { useReviewWindow } from "./review-window";

type Outputs = inferRouterOutputs<AppRouter>;
type Script = Outputs["student"]["scripts"]["get"];
type Question = Script["questions"][number];
type Request = Outputs["student"]["reviews"]["mine"]["requests"][number];

/** The longest reason the server takes (server/exam/returns/review-requests.ts). */
const REASON_MAX = 2000;

/**
 * Review requests on the student's script (issue 35, item 6): while the release's reviews are open, each
 * question offers "Ask for a review" (a dialog with the reason); the student's requests show under their
 * question, open or answered (kept, or changed from → to, the reply, when). After the window, no button
 * and a line saying when reviews closed; a release without reviews and no requests shows nothing.
 */
export function ReviewRequests({ script }: { script: Script }) {
  const trpc = useTRPC();
  const mine = useQuery(trpc.student.reviews.mine.queryOptions({ submission_id: script.submission_id }));
  const [asking, setAsking] = useState<Question | null>(null);
  const [sent, setSent] = useState<string | null>(null);
  const reviews = useReviewWindow(script.reviews_until);
  const open = reviews.state === "open";
  const requests = mine.data?.requests ?? [];
  // Sent: the question's button is gone (its request is open), so focus goes to the confirmation instead.
  const sentNote = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (sent) sentNote.current?.focus();
  }, [sent]);
  if (reviews.state === "none" && requests.length === 0) return null;

  return (
    <Card
      title="Review requests"
      id="review-requests"
      description={
        reviews.state === "open" ? (
          <>
            If you think a question was marked wrongly, ask for it to be looked at again, and say why. You can ask until <LocalDate value={reviews.until} style="dateTime" />.
          </>
        ) : reviews.state === "closed" ? (
          <>
            Reviews closed on <LocalDate value={reviews.until} style="dateTime" />: you can no longer ask for a question to be looked at again.
          </>
        ) : (
          "Your teacher's answers to your requests."
        )
      }
    >
      {sent ? (
        <div ref={sentNote} tabIndex={-1} className="review-requests__sent">
          <Status tone="success" title="Request sent">
            {sent}
          </Status>
        </div>
      ) : null}
      {mine.isError ? <LoadFailed what="Your review requests" error={mine.error} onRetry={() => mine.refetch()} /> : null}
      <ul className="review-requests">
        {script.questions.map((question) => {
          const own = requests.filter((request) => request.question_id === question.id);
          const waiting = own.some((request) => request.status === "open");
          if (!open && own.length === 0) return null;
          return (
            <li key={question.id} className="review-requests__question" data-question={question.label}>
              <div className="review-requests__row">
                <h3 className="review-requests__label">Question {question.label}</h3>
                {open && !waiting && mine.isSuccess ? (
                  <Button variant="secondary" size="small" onClick={() => { setSent(null); setAsking(question); }} aria-label={`Ask for a review of question ${question.label}`}>
                    Ask for a review
                  </Button>
                ) : null}
              </div>
              {own.length > 0 ? (
                <ul className="review-requests__list" aria-label={`Your requests for question ${question.label}`}>
                  {own.map((request) => (
                    <RequestItem key={request.id} request={request} max={question.max_marks} />
                  ))}
                </ul>
              ) : null}
            </li>
          );
        })}
      </ul>
      <AskDialog
        submissionId={script.submission_id}
        question={asking}
        onClose={() => setAsking(null)}
        onSent={(question) => {
          setAsking(null);
          setSent(`Your request about question ${question.label} went to your teacher. Their answer will show here.`);
        }}
      />
    </Card>
  );
}

function RequestItem({ request, max }: { request: Request; max: number }) {
  return (
    <li className="review-request" data-testid="review-request" data-status={request.status}>
      <p className="review-request__reason">
        <span className="muted">You asked on <LocalDate value={request.created_at} />:</span> “{request.reason}”
      </p>
      {request.status === "open" ? (
        <p className="review-request__state">Waiting for your teacher.</p>
      ) : (
        <div className="review-request__answer" data-testid="review-answer">
          <p className="review-request__state">
            {request.outcome === "changed" && request.marks_before !== null && request.marks_after !== null ? (
              <>
                Mark changed from <strong>{formatMarks(request.marks_before)}</strong> to <strong>{formatMarks(request.marks_after)}</strong> (out of {formatMarks(max)})
              </>
            ) : request.outcome === "changed" ? (
              <>Mark changed{request.marks_after !== null ? <> to <strong>{formatMarks(request.marks_after)}</strong></> : null}</>
            ) : (
              <>Mark kept{request.marks_before !== null ? <> at <strong>{formatMarks(request.marks_before)}</strong></> : null}</>
            )}
            {request.answered_at ? (
              <span className="review-request__when">
                {" "}
                · answered <LocalDate value={request.answered_at} />
              </span>
            ) : null}
          </p>
          {request.reply ? <p className="review-request__reply">Your teacher: “{request.reply}”</p> : null}
        </div>
      )}
    </li>
  );
}

function AskDialog({ submissionId, question, onClose, onSent }: { submissionId: string; question: Question | null; onClose: () => void; onSent: (question: Question) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const ask = useMutation(trpc.student.reviews.request.mutationOptions());
  const [reason, setReason] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const id = useId();
  const close = () => {
    setReason("");
    setProblem(null);
    ask.reset();
    onClose();
  };
  const submit = async () => {
    if (!question) return;
    if (reason.trim() === "") return setProblem("Say why the question should be looked at again.");
    setProblem(null);
    const created = await ask.mutateAsync({ submission_id: submissionId, question_id: question.id, reason: reason.trim() }).catch(() => null);
    // A refusal (reviews closed, already asked, not found) stays in the dialog, in the server's words; the list is read again either way.
    await queryClient.invalidateQueries({ queryKey: trpc.student.reviews.mine.queryKey() });
    if (!created) return;
    setReason("");
    ask.reset();
    onSent(question);
  };
  const left = REASON_MAX - reason.length;
  return (
    <FormDialog
      open={question !== null}
      title={question ? `Ask for a review of question ${question.label}` : "Ask for a review"}
      description="Your teacher looks at the question again and answers you here. They may keep the mark or change it."
      submitLabel="Send request"
      busyLabel="Sending…"
      busy={ask.isPending}
      onSubmit={() => void submit()}
      onClose={close}
    >
      <div className="field">
        <label className="field__label" htmlFor={id}>
          Why should it be looked at again?
        </label>
        <textarea
          id={id}
          className="input review-dialog__reason"
          rows={5}
          maxLength={REASON_MAX}
          required
          value={reason}
          aria-invalid={problem ? true : undefined}
          aria-describedby={`${id}-count${problem ? ` ${id}-error` : ""}`}
          onChange={(event) => {
            setReason(event.currentTarget.value);
            setProblem(null);
          }}
        />
        <p className="field__hint" id={`${id}-count`}>
          {left === REASON_MAX ? `Up to ${REASON_MAX} characters.` : `${left} of ${REASON_MAX} characters left.`}
        </p>
        {problem ? (
          <p className="field__error" id={`${id}-error`}>
            {problem}
          </p>
        ) : null}
      </div>
      {ask.isError ? (
        <Status tone="error" title="Request not sent">
          {errorMessage(ask.error)}
        </Status>
      ) : null}
    </FormDialog>
  );
}
