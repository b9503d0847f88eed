"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useId, useRef, useState, type KeyboardEvent } from "react";
import { Button, buttonClassName } from "@/components/ui/Button";
import { EmptyState } from "@/components/ui/EmptyState";
import { CheckCircleIcon } from "@/components/ui/icons";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Loading } from "@/components/ui/Loading";
import { Status } from "@/components/ui/Status";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import { printedScriptNumber } from "../script-label";
import { type IdentifyCandidate, rankForIdentify } from "./identify-match";
import { sortByName } from "@/lib/text/names";

/** Names shown under the field: enough to see the right one among a few that fit, never a wall. */
const SHOWN_CANDIDATES = 6;

/** Where the name box of a script is shown, cropped and upright (server/exam/intake/name-crop.ts). */
const nameCropUrl = (submissionId: string) => `/api/exam/submissions/${submissionId}/name-crop`;

interface Identified {
  scriptId: string;
  label: string;
  studentName: string;
}

/**
 * The Identify queue: scripts without a student (spare copies, pages whose code could not be read,
 * scans uploaded without a name), one at a time, the name written on each shown large. The teacher
 * types the first letters of the name and presses Enter; the next script comes up with the field empty
 * and focused. Arrow keys move through the names that fit; Escape clears what was typed.
 */
export function IdentifyQueue({ batchId }: { batchId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const queue = useQuery(trpc.exam.batches.queue.queryOptions({ batch_id: batchId }));
  const assign = useMutation(trpc.exam.submissions.assign.mutationOptions());
  const [typed, setTyped] = useState("");
  const [highlight, setHighlight] = useState(0);
  const [skipped, setSkipped] = useState<string[]>([]);
  const [done, setDone] = useState<Identified[]>([]);
  const field = useRef<HTMLInputElement>(null);
  const listId = useId();

  const submissions = queue.data?.submissions ?? [];
  const anonymous = queue.data?.batch.anonymous ?? false;
  const classId = queue.data?.batch.class_id ?? null;
  const classStudents = useQuery({ ...trpc.classes.students.queryOptions({ classId: classId ?? "" }), enabled: anonymous && classId !== null });
  // Scripts still to identify: in the order they were made, then by printed number; skipped ones last.
  // One identified just now leaves at once, before the queue is read again: Enter never sends it twice.
  const scripts = submissions
    .filter((submission) => !submission.has_student && submission.scan_url && !done.some((item) => item.scriptId === submission.id))
    .sort(
      (a, b) =>
        Number(skipped.includes(a.id)) - Number(skipped.includes(b.id)) ||
        +a.created_at - +b.created_at ||
        (printedScriptNumber(a.qr_code) ?? 0) - (printedScriptNumber(b.qr_code) ?? 0) ||
        a.id.localeCompare(b.id),
    );
  const current = scripts[0];
  // An anonymous batch's queue names nobody: the owner identifies its scripts from the class list, which
  // says who is in the class but not which script is whose.
  const students: IdentifyCandidate[] = anonymous
    ? (classStudents.data?.students ?? []).map((student) => ({ id: student.id, name: student.full_name, identified: false }))
    : submissions
        .filter((submission): submission is typeof submission & { student_id: string } => Boolean(submission.student_id))
        .map((submission) => ({ id: submission.student_id, name: submission.student_name ?? "Unnamed student", identified: Boolean(submission.scan_url) }));
  // By surname, as the class list reads (lib/text/names.ts); ranking keeps this order among equals.
  const candidates = rankForIdentify(sortByName(students, (student) => student.name, (student) => student.id), typed).slice(0, SHOWN_CANDIDATES);
  const chosen = candidates[Math.min(highlight, candidates.length - 1)];

  useEffect(() => {
    field.current?.focus();
  }, [current?.id]);

  // The next script's crop is fetched while this one is read, so Enter shows it at once.
  const nextId = scripts[1]?.id;
  useEffect(() => {
    if (!nextId) return;
    const image = new Image();
    image.src = nameCropUrl(nextId);
  }, [nextId]);

  if (queue.isPending) return <Loading>Loading the scripts to identify…</Loading>;
  if (queue.isError) return <LoadFailed what="The batch" error={queue.error} onRetry={() => queue.refetch()} />;

  const label = (script: { qr_code: string | null }, position: number) => {
    const number = printedScriptNumber(script.qr_code);
    return number ? `Script ${number}` : `Scan ${position}`;
  };

  function identify() {
    if (!current || !chosen || assign.isPending) return;
    const script = current;
    const scriptLabel = label(script, done.length + 1);
    assign.mutate(
      { submission_id: script.id, student_id: chosen.id },
      {
        onSuccess: (submission) => {
          setDone((all) => [{ scriptId: script.id, label: scriptLabel, studentName: submission.student_name ?? chosen.name }, ...all]);
          setTyped("");
          setHighlight(0);
          void queryClient.invalidateQueries({ queryKey: trpc.exam.batches.queue.queryKey({ batch_id: batchId }) }).then(() => field.current?.focus());
        },
      },
    );
  }

  function onKeyDown(event: KeyboardEvent<HTMLInputElement>) {
    if (event.key === "Enter") {
      event.preventDefault();
      identify();
    } else if (event.key === "ArrowDown") {
      event.preventDefault();
      setHighlight((index) => Math.min(index + 1, candidates.length - 1));
    } else if (event.key === "ArrowUp") {
      event.preventDefault();
      setHighlight((index) => Math.max(index - 1, 0));
    } else if (event.key === "Escape") {
      setTyped("");
      setHighlight(0);
    }
  }

  const back = (
    <Link href={`/batches/${batchId}`} className="back-link">
      ← {queue.data.batch.title}
    </Link>
  );

  if (!current) {
    return (
      <div className="identify">
        <header className="page__header">{back}<h1>Identify scripts</h1></header>
        <EmptyState
          icon={<CheckCircleIcon size={32} />}
          title={done.length > 0 ? "Every script is identified" : "No script to identify"}
          note={
            <Link className={buttonClassName({ variant: "secondary" })} href={`/batches/${batchId}`}>
              Back to the batch
            </Link>
          }
        >
          {done.length > 0
            ? `You identified ${done.length} script${done.length === 1 ? "" : "s"}. Their pages are now in each student's submission.`
            : "Every scanned script in this batch belongs to a student."}
        </EmptyState>
        <IdentifiedList done={done} />
      </div>
    );
  }

  const currentLabel = label(current, done.length + 1);
  return (
    <div className="identify">
      <header className="page__header">
        {back}
        <h1>Identify scripts</h1>
        <p className="page__lede">
          {scripts.length} script{scripts.length === 1 ? "" : "s"} to identify. Type the first letters of the name you read, then press Enter.
        </p>
      </header>
      <div className="identify__layout">
        <figure className="identify__crop">
          <img key={current.id} src={nameCropUrl(current.id)} alt={`The name written on ${currentLabel}`} />
          <figcaption>
            {currentLabel} · {current.page_count ?? "?"} page{current.page_count === 1 ? "" : "s"} ·{" "}
            <a href={`/api/exam/submissions/${current.id}/scan`} target="_blank" rel="noreferrer">
              Open the whole scan
            </a>
          </figcaption>
        </figure>
        <div className="identify__form">
          <label className="field__label" htmlFor={`${listId}-input`}>
            Whose script is {currentLabel}?
          </label>
          <input
            ref={field}
            id={`${listId}-input`}
            className="input identify__input"
            role="combobox"
            aria-expanded={candidates.length > 0}
            aria-controls={listId}
            aria-activedescendant={chosen ? `${listId}-${chosen.id}` : undefined}
            autoComplete="off"
            spellCheck={false}
            value={typed}
            disabled={assign.isPending}
            onChange={(event) => {
              setTyped(event.currentTarget.value);
              setHighlight(0);
            }}
            onKeyDown={onKeyDown}
          />
          <ul id={listId} role="listbox" className="identify__candidates" aria-label="Students whose names fit">
            {candidates.map((student) => (
              <li
                key={student.id}
                id={`${listId}-${student.id}`}
                role="option"
                aria-selected={student === chosen}
                className={student === chosen ? "identify__candidate identify__candidate--chosen" : "identify__candidate"}
                onMouseDown={(event) => event.preventDefault()}
                onClick={() => {
                  setHighlight(candidates.indexOf(student));
                  field.current?.focus();
                }}
              >
                <span>{student.name}</span>
                {student.identified ? <span className="identify__note">has a scan</span> : null}
              </li>
            ))}
            {candidates.length === 0 ? (
              <li className="identify__none">
                No student on this batch&apos;s list fits “{typed}”. For a student who is not on the list, use “Assign to student” on the batch page.
              </li>
            ) : null}
          </ul>
          {assign.isError ? (
            <Status tone="error" title={`${currentLabel} was not identified`}>
              {errorMessage(assign.error)}
            </Status>
          ) : null}
          <div className="identify__actions">
            <Button onClick={identify} disabled={!chosen || assign.isPending}>
              {assign.isPending ? "Identifying…" : chosen ? `This is ${chosen.name}` : "Identify"}
            </Button>
            <Button
              variant="secondary"
              onClick={() => {
                setSkipped((all) => [...all.filter((id) => id !== current.id), current.id]);
                setTyped("");
                assign.reset();
              }}
              disabled={scripts.length < 2}
            >
              Skip for now
            </Button>
          </div>
          <p className="muted identify__keys">Enter identifies · ↑ ↓ choose · Esc clears</p>
        </div>
      </div>
      <IdentifiedList done={done} />
    </div>
  );
}

function IdentifiedList({ done }: { done: Identified[] }) {
  if (done.length === 0) return null;
  return (
    <section className="identify__done" aria-labelledby="identified-heading">
      <h2 id="identified-heading" className="section-heading">
        Identified just now
      </h2>
      <ul className="identify__done-list">
        {done.map((item) => (
          <li key={item.scriptId}>
            {item.label} → {item.studentName}
          </li>
        ))}
      </ul>
    </section>
  );
}
