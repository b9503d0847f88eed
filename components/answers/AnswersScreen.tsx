"use client";

import Link from "next/link";
import { useState, type KeyboardEvent } from "react";
import { Badge } from "@/components/ui/Badge";
import { Button, buttonClassName } from "@/components/ui/Button";
import { EmptyState } from "@/components/ui/EmptyState";
import { InfoIcon } from "@/components/ui/icons";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Loading } from "@/components/ui/Loading";
import { Status } from "@/components/ui/Status";
import { errorMessage } from "@/lib/trpc/errors";
import {
  type AnswerGroup,
  type QuestionAnswers,
  type ScriptAnswer,
  answerCropUrl,
  answerInWords,
  checkQueue,
  groupHeading,
  groupKind,
  marksInWords,
  marksOfAnswer,
  scriptMarkInWords,
  unmarkedBlanks,
} from "./answers-state";
import { BoxChooser } from "./BoxChooser";
import { useAnswersBatch, useBatchAnswers } from "./use-answers";

/** What a marker is correcting: a whole group, or one script of it. */
interface Correcting {
  questionId: string;
  groupKey: string;
  submissionId: string | null;
}

/**
 * The answers screen (issue 36): per question read from the scan, identical answers grouped ("14
 * scripts: B ✓ (2 marks)"), each with a crop of every script's boxes. A marker confirms or corrects a
 * whole group at once, or one script of it; the undecided ones go to the check screen; the blanks of a
 * written question are given 0 with one key (z, focus in the question). The batch's owner chooses
 * whether confident blanks get 0 automatically. Marks given automatically say so.
 */
export function AnswersScreen({ batchId, viewerId }: { batchId: string; viewerId: string }) {
  const { answers, setAnswer, zeroBlanks, setAutoZeroBlanks } = useBatchAnswers(batchId);
  const { queue, mayMark, locked } = useAnswersBatch(batchId);
  const [correcting, setCorrecting] = useState<Correcting | null>(null);
  const [done, setDone] = useState<string | null>(null);

  if (answers.isPending || queue.isPending) return <Loading>Loading the answers read from the scans…</Loading>;
  if (answers.isError) return <LoadFailed what="The answers" error={answers.error} onRetry={() => answers.refetch()} />;
  if (queue.isError) return <LoadFailed what="The batch" error={queue.error} onRetry={() => queue.refetch()} />;

  const { batch } = queue.data;
  const isOwner = batch.teacher_id === viewerId;
  const { questions, reading, auto_zero_blanks: autoZero } = answers.data;
  const undecided = checkQueue(answers.data, new Set()).length;
  const busy = setAnswer.isPending || zeroBlanks.isPending;

  const decide = (question: QuestionAnswers, scripts: readonly ScriptAnswer[], answer: string[]) => {
    setDone(null);
    setAnswer.mutate(
      { batch_id: batchId, question_id: question.question_id, submission_ids: scripts.map((script) => script.submission_id), answer },
      {
        onSuccess: ({ marked }) => {
          setCorrecting(null);
          const marks = marksInWords(marksOfAnswer(question, answer));
          setDone(
            scripts.length === 1
              ? `Question ${question.label}, ${scripts[0]!.script_label}: ${answerInWords(answer)} (${marks}).`
              : `Question ${question.label}: ${marked} script${marked === 1 ? "" : "s"} marked ${answerInWords(answer)} (${marks} each).`,
          );
        },
      },
    );
  };
  const giveBlanksZero = (question: QuestionAnswers) => {
    if (!mayMark || busy || unmarkedBlanks(question) === 0) return;
    setDone(null);
    zeroBlanks.mutate(
      { batch_id: batchId, question_id: question.question_id },
      { onSuccess: ({ marked }) => setDone(`Question ${question.label}: ${marked} blank answer${marked === 1 ? "" : "s"} given 0.`) },
    );
  };
  const onQuestionKey = (question: QuestionAnswers) => (event: KeyboardEvent<HTMLElement>) => {
    const target = event.target as HTMLElement;
    if (event.key !== "z" || event.ctrlKey || event.metaKey || event.altKey || target.closest("input, textarea, select")) return;
    if (question.kind !== "written") return;
    event.preventDefault();
    giveBlanksZero(question);
  };

  const failure = setAnswer.error ?? zeroBlanks.error;

  return (
    <div className="answers">
      <header className="page__header">
        <Link href={`/batches/${batchId}`} className="back-link">
          ← {batch.title}
        </Link>
        <h1>Answers read from the scans</h1>
        <p className="page__lede">
          Tick boxes are marked from the ticks and blank answers are found as the pages are filed. Confirm or correct identical answers together; check what the reader
          could not decide.
        </p>
        <div className="answers__actions">
          {undecided > 0 && mayMark ? (
            <Link className={buttonClassName({})} href={`/batches/${batchId}/answers/check`}>
              Check {undecided} undecided answer{undecided === 1 ? "" : "s"}
            </Link>
          ) : null}
          <Link className={buttonClassName({ variant: "secondary" })} href={`/batches/${batchId}/results`}>
            Results
          </Link>
        </div>
      </header>

      {reading > 0 ? (
        <Status tone="info" title={`Reading ${reading} script${reading === 1 ? "" : "s"}…`}>
          Their answers appear here as they are read.
        </Status>
      ) : null}
      {locked ? <p className="muted" role="note">This batch is archived or signed off: its answers can be read, not changed.</p> : null}

      <section className="card answers__setting" aria-labelledby="auto-zero-heading">
        <h2 id="auto-zero-heading" className="visually-hidden">
          Blank answers
        </h2>
        {isOwner ? (
          <label className="checkbox">
            <input
              type="checkbox"
              role="switch"
              checked={autoZero}
              disabled={locked || setAutoZeroBlanks.isPending}
              aria-describedby="auto-zero-hint"
              onChange={(event) => setAutoZeroBlanks.mutate({ batch_id: batchId, auto_zero_blanks: event.currentTarget.checked })}
            />
            Give confident blanks 0 automatically
          </label>
        ) : (
          <p>
            <strong>Confident blanks given 0 automatically: {autoZero ? "on" : "off"}.</strong> Only the batch&apos;s owner changes this.
          </p>
        )}
        <p className="field__hint" id="auto-zero-hint">
          {autoZero
            ? "On: a written answer read as blank for certain gets 0 by itself, shown as “blank, given 0 automatically”; a marker can undo it on the marking screen (u)."
            : "Off: blank answers are shown as blank, and you give them 0 yourself (“Give all blanks 0”, or z on a question)."}
        </p>
        {setAutoZeroBlanks.isError ? (
          <Status tone="error" title="The setting was not changed">
            {errorMessage(setAutoZeroBlanks.error)}
          </Status>
        ) : null}
      </section>

      <div role="status" className="answers__live">
        {done ? <Status tone="success" title={done} role="none" /> : null}
      </div>
      {failure ? (
        <Status tone="error" title="Not saved">
          {errorMessage(failure)}
        </Status>
      ) : null}

      {questions.length === 0 ? (
        <EmptyState icon={<InfoIcon size={32} />} title={reading > 0 ? "Nothing read yet" : "No answers read from the scans"}>
          {reading > 0
            ? "The filed pages are being read; their answers appear here."
            : "Answers appear here once scanned pages are filed: tick boxes of multiple-choice questions, and whether written answers are blank."}
        </EmptyState>
      ) : null}

      {questions.map((question) => {
        const blanks = unmarkedBlanks(question);
        return (
          <section
            key={question.question_id}
            className="card answers__question"
            // Focusable by a click anywhere in it, so its key (z) works from its heading or a crop too.
            tabIndex={-1}
            aria-labelledby={`question-${question.question_id}`}
            onKeyDown={onQuestionKey(question)}
          >
            <header className="answers__question-header">
              <h2 id={`question-${question.question_id}`}>Question {question.label}</h2>
              <p className="muted">
                {question.kind === "ticks"
                  ? `Tick boxes ${question.box_labels.join(", ")} · right answer ${answerInWords(question.correct)} · ${marksInWords(question.max_marks)}`
                  : `Written answer · ${marksInWords(question.max_marks)}`}
              </p>
              {question.kind === "written" && blanks > 0 && mayMark ? (
                <Button variant="secondary" size="small" aria-keyshortcuts="z" disabled={busy} onClick={() => giveBlanksZero(question)}>
                  Give all {blanks} blank{blanks === 1 ? "" : "s"} 0 <kbd aria-hidden="true">z</kbd>
                </Button>
              ) : null}
            </header>
            {question.groups.length === 0 ? <p className="muted">No script of this batch has this question read yet.</p> : null}
            {question.groups.map((group) => (
              <Group
                key={group.key}
                batchId={batchId}
                question={question}
                group={group}
                mayMark={mayMark}
                busy={busy}
                correcting={correcting?.questionId === question.question_id && correcting.groupKey === group.key ? correcting : null}
                onCorrect={(submissionId) => setCorrecting({ questionId: question.question_id, groupKey: group.key, submissionId })}
                onCancel={() => setCorrecting(null)}
                onDecide={(scripts, answer) => decide(question, scripts, answer)}
              />
            ))}
          </section>
        );
      })}
    </div>
  );
}

function Group({
  batchId,
  question,
  group,
  mayMark,
  busy,
  correcting,
  onCorrect,
  onCancel,
  onDecide,
}: {
  batchId: string;
  question: QuestionAnswers;
  group: AnswerGroup;
  mayMark: boolean;
  busy: boolean;
  correcting: Correcting | null;
  onCorrect: (submissionId: string | null) => void;
  onCancel: () => void;
  onDecide: (scripts: readonly ScriptAnswer[], answer: string[]) => void;
}) {
  const kind = groupKind(group);
  const heading = groupHeading(question, group);
  const ticks = question.kind === "ticks";
  const allConfirmed = ticks && group.answer !== null && group.scripts.every((script) => script.marked_by === "teacher");
  const automatic = group.scripts.filter((script) => script.marked_by === "ticks" || script.marked_by === "blank").length;
  const count = group.scripts.length;
  const chooser = (scripts: readonly ScriptAnswer[], initial: readonly string[] | null) => (
    <BoxChooser
      question={question}
      initial={initial}
      applyLabel={scripts.length === 1 ? `Apply to ${scripts[0]!.script_label}` : `Apply to ${scripts.length} scripts`}
      busy={busy}
      onApply={(answer) => onDecide(scripts, answer)}
      onCancel={onCancel}
    />
  );

  const crops = (
    <ul className="answers__crops">
      {group.scripts.map((script) => {
        const alt = `${script.script_label}, question ${question.label}'s ${ticks ? "boxes" : "answer"}`;
        const correctingThis = correcting?.submissionId === script.submission_id;
        return (
          <li key={script.submission_id} className="answers__script">
            <figure className="answers__figure">
              <img src={answerCropUrl(script.submission_id, script.response_area_id)} alt={alt} loading="lazy" className="answers__crop" />
              <figcaption>
                <span className="answers__script-label">{script.script_label}</span>
                <span className="muted">{scriptMarkInWords(script)}</span>
              </figcaption>
            </figure>
            {mayMark && ticks ? (
              correctingThis ? (
                chooser([script], script.teacher_answer ?? script.read_answer)
              ) : (
                <div className="answers__script-actions">
                  {group.answer !== null && script.marked_by !== "teacher" ? (
                    <Button variant="secondary" size="small" disabled={busy} onClick={() => onDecide([script], group.answer!)} aria-label={`Confirm ${script.script_label}: ${answerInWords(group.answer)}`}>
                      Confirm
                    </Button>
                  ) : null}
                  <Button variant="secondary" size="small" disabled={busy} onClick={() => onCorrect(script.submission_id)} aria-label={`Correct ${script.script_label}`}>
                    Correct
                  </Button>
                </div>
              )
            ) : null}
            {!ticks ? (
              <Link className="answers__mark-link" href={`/batches/${batchId}/mark?submission=${script.submission_id}`} aria-label={`Mark ${script.script_label}`}>
                Mark
              </Link>
            ) : null}
          </li>
        );
      })}
    </ul>
  );

  const body = (
    <>
      {mayMark && ticks ? (
        correcting && correcting.submissionId === null ? (
          chooser(group.scripts, group.answer)
        ) : (
          <div className="answers__group-actions">
            {kind === "undecided" ? (
              <Link className={buttonClassName({ size: "small" })} href={`/batches/${batchId}/answers/check`}>
                Check them one by one
              </Link>
            ) : null}
            {group.answer !== null && !allConfirmed ? (
              <Button size="small" disabled={busy} onClick={() => onDecide(group.scripts, group.answer!)} aria-label={`Confirm group: ${heading}`}>
                Confirm group
              </Button>
            ) : null}
            <Button variant="secondary" size="small" disabled={busy} onClick={() => onCorrect(null)} aria-label={`Correct group: ${heading}`}>
              Correct{count > 1 ? ` all ${count}` : ""}
            </Button>
          </div>
        )
      ) : null}
      {crops}
    </>
  );

  const badges = (
    <>
      {allConfirmed ? <Badge tone="success">Confirmed</Badge> : null}
      {automatic > 0 ? <Badge tone="neutral">{automatic === count ? "Automatic marks" : `${automatic} automatic`}</Badge> : null}
    </>
  );

  // A written question's written answers are marked on the marking screen: their crops stay folded.
  if (kind === "written") {
    return (
      <details className="answers__group">
        <summary className="answers__group-heading">
          <span>{heading}</span> {badges} <span className="muted answers__summary-hint">(marked on the marking screen; open for their crops)</span>
        </summary>
        {body}
      </details>
    );
  }
  return (
    <section className={`answers__group answers__group--${kind}`} aria-label={`Question ${question.label}: ${heading}`}>
      <h3 className="answers__group-heading">
        <span>{heading}</span> {badges}
      </h3>
      {body}
    </section>
  );
}
