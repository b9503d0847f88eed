"use client";

import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useLayoutEffect, useRef, useState } from "react";
import { Button, buttonClassName } from "@/components/ui/Button";
import { EmptyState } from "@/components/ui/EmptyState";
import { CheckCircleIcon } from "@/components/ui/icons";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Loading } from "@/components/ui/Loading";
import { Status } from "@/components/ui/Status";
import { errorMessage } from "@/lib/trpc/errors";
import { answerCropUrl, answerInWords, checkPosition, checkQueue, isRightAnswer, labelOfKey, marksInWords, marksOfAnswer, toggleLabel } from "./answers-state";
import { BoxButtons } from "./BoxChooser";
import { useAnswersBatch, useBatchAnswers } from "./use-answers";

/**
 * The check screen (issue 36, item 5): the answers the reader could not decide, one at a time, the crop
 * of the boxes large. A letter key toggles its box (only the question's letters), 0 says none is
 * ticked, Enter saves that script's answer (a teacher's mark, by the scheme) and shows the next;
 * Escape goes back to the answers. Scripts are named as the operation names them (a number where
 * the batch hides names).
 */
export function CheckScreen({ batchId }: { batchId: string }) {
  const router = useRouter();
  const { answers, setAnswer } = useBatchAnswers(batchId);
  const { queue, mayMark } = useAnswersBatch(batchId);
  const [done, setDone] = useState<ReadonlySet<string>>(new Set());
  const [skipped, setSkipped] = useState<string[]>([]);
  /** The boxes chosen for the answer on screen; null until a box or 0 is pressed (Enter then asks for one). */
  const [chosen, setChosen] = useState<string[] | null>(null);
  const [prompt, setPrompt] = useState<string | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);

  const items = checkQueue(answers.data, done, skipped);
  const current = items[0];
  const back = `/batches/${batchId}/answers`;

  const save = () => {
    if (!current || setAnswer.isPending || !mayMark) return;
    if (chosen === null) {
      setPrompt(`Press the letters of the boxes ticked (${current.question.box_labels.join(", ")}), or 0 when none is, then Enter.`);
      return;
    }
    const item = current;
    setAnswer.mutate(
      { batch_id: batchId, question_id: item.question.question_id, submission_ids: [item.script.submission_id], answer: chosen },
      {
        onSuccess: () => {
          setDone((all) => new Set([...all, item.key]));
          setChosen(null);
          setPrompt(null);
        },
      },
    );
  };

  // Keys on the whole page: letters toggle boxes, 0 none, Enter saves, Escape goes back.
  const onKey = (event: KeyboardEvent) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target as HTMLElement | null;
    if (target?.closest("input, textarea, select")) return;
    if (event.key === "Escape") {
      event.preventDefault();
      router.push(back);
      return;
    }
    if (!current) return;
    if (event.key === "Enter") {
      // Enter saves, also from a box's button just clicked (Space presses it); a link and Skip keep their own Enter.
      if (target?.closest("a, [data-own-enter]")) return;
      event.preventDefault();
      save();
      return;
    }
    if (event.key === "0") {
      event.preventDefault();
      setChosen([]);
      setPrompt(null);
      return;
    }
    const label = labelOfKey(event.key, current.question.box_labels);
    if (label) {
      event.preventDefault();
      setChosen((now) => toggleLabel(now ?? [], label, current.question.box_labels));
      setPrompt(null);
    }
  };
  const handler = useRef(onKey);
  useLayoutEffect(() => {
    handler.current = onKey;
  });
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      if (!event.defaultPrevented) handler.current(event);
    };
    document.addEventListener("keydown", listener);
    return () => document.removeEventListener("keydown", listener);
  }, []);

  // Each new answer takes focus to its heading, so a screen reader says which script and question it is.
  useEffect(() => {
    heading.current?.focus();
  }, [current?.key]);

  // The next crop is fetched while this one is checked, so Enter shows it at once.
  const next = items[1];
  useEffect(() => {
    if (!next) return;
    const image = new Image();
    image.src = answerCropUrl(next.script.submission_id, next.script.response_area_id);
  }, [next]);

  if (answers.isPending || queue.isPending) return <Loading>Loading the answers to check…</Loading>;
  if (answers.isError) return <LoadFailed what="The answers" error={answers.error} onRetry={() => answers.refetch()} />;
  if (queue.isError) return <LoadFailed what="The batch" error={queue.error} onRetry={() => queue.refetch()} />;

  const header = (
    <header className="page__header">
      <Link href={back} className="back-link">
        ← Answers of {queue.data.batch.title}
      </Link>
      <h1>Check undecided answers</h1>
    </header>
  );

  if (!current) {
    return (
      <div className="check">
        {header}
        <EmptyState
          icon={<CheckCircleIcon size={32} />}
          title="Every answer is decided"
          note={
            <Link className={buttonClassName({ variant: "secondary" })} href={back}>
              Back to the answers
            </Link>
          }
        >
          {done.size > 0
            ? `You decided ${done.size} answer${done.size === 1 ? "" : "s"}; each is marked by the question's scheme.`
            : answers.data.reading > 0
              ? `No answer needs checking yet; ${answers.data.reading} script${answers.data.reading === 1 ? " is" : "s are"} still being read.`
              : "The reader decided every tick-box answer of this batch."}
        </EmptyState>
      </div>
    );
  }

  const { question, script } = current;
  const marks = chosen === null ? null : marksOfAnswer(question, chosen);
  return (
    <div className="check">
      {header}
      <p className="check__count" aria-live="polite">
        {checkPosition(done.size, items.length)}
      </p>
      <div className="check__layout">
        <figure className="check__figure">
          <img key={current.key} className="check__crop" src={answerCropUrl(script.submission_id, script.response_area_id)} alt={`${script.script_label}, question ${question.label}'s boxes`} />
        </figure>
        <div className="check__form">
          <h2 ref={heading} tabIndex={-1} className="check__heading">
            {script.script_label}, question {question.label}
          </h2>
          <p className="muted">
            Boxes {question.box_labels.join(", ")} · right answer {answerInWords(question.correct)} · {marksInWords(question.max_marks)}
            {question.allow_multiple ? " · more than one tick allowed" : ""}
          </p>
          <div role="group" aria-label="Boxes ticked">
            <BoxButtons
              question={question}
              answer={chosen}
              large
              keys
              onToggle={(label) => {
                setChosen((now) => toggleLabel(now ?? [], label, question.box_labels));
                setPrompt(null);
              }}
              onNone={() => {
                setChosen([]);
                setPrompt(null);
              }}
            />
          </div>
          <p className="check__outcome" aria-live="polite">
            {chosen === null ? "Nothing chosen yet." : `${answerInWords(chosen)}: ${marksInWords(marks!)}${isRightAnswer(question, chosen) ? " (the right answer)" : ""}.`}
          </p>
          {prompt ? (
            <Status tone="warning" title="Choose the boxes first">
              {prompt}
            </Status>
          ) : null}
          {setAnswer.isError ? (
            <Status tone="error" title={`${script.script_label} was not saved`}>
              {errorMessage(setAnswer.error)}
            </Status>
          ) : null}
          {!mayMark ? <p className="muted">You can read these answers; deciding them is for the batch&apos;s markers.</p> : null}
          <div className="check__actions">
            <Button onClick={save} disabled={!mayMark || setAnswer.isPending} aria-keyshortcuts="Enter">
              {setAnswer.isPending ? "Saving…" : "Save and next"} <kbd aria-hidden="true">Enter</kbd>
            </Button>
            <Button
              variant="secondary"
              data-own-enter
              disabled={items.length < 2}
              onClick={() => {
                setSkipped((all) => [...all.filter((key) => key !== current.key), current.key]);
                setChosen(null);
                setPrompt(null);
                setAnswer.reset();
              }}
            >
              Skip for now
            </Button>
          </div>
          <p className="muted check__keys">
            {question.box_labels[0]}–{question.box_labels.at(-1)} tick or untick a box · 0 none ticked · Enter saves and shows the next · Esc back to the answers
          </p>
        </div>
      </div>
    </div>
  );
}
