"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, useState } from "react";
import { Button, buttonClassName } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";
import { LocalDate } from "@/components/ui/dates";
import { TextField } from "@/components/ui/Field";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Loading } from "@/components/ui/Loading";
import { Table } from "@/components/ui/Table";
import { errorMessage } from "@/lib/trpc/errors";
import { useTRPC } from "@/components/trpc/client";
import { AgreementTable } from "./AgreementTable";
import { signedMarks } from "./agreement-format";
import { type SignOffWarnings, signOffWarnings } from "./sign-off-warnings";
import "./moderation.css";

/** A number typed with a point or a comma; null when it is not one. */
function typedNumber(value: string): number | null {
  const trimmed = value.trim().replace(",", ".");
  if (trimmed === "" || !/^\d+(\.\d+)?$/.test(trimmed)) return null;
  return Number(trimmed);
}

/**
 * Moderation of a batch (issue 19): the sample (moderators), the caller's blind second marking, the
 * agreement, the differences to reconcile (moderators), and the sign-off (department heads).
 */
export function ModerationView({ batchId }: { batchId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const state = useQuery(trpc.exam.moderation.state.queryOptions({ batch_id: batchId }));
  const canModerate = state.data?.can_moderate ?? false;
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.exam.moderation.pathKey() });

  if (state.isPending) return <Loading>Loading the moderation…</Loading>;
  if (state.isError) return <LoadFailed what="The moderation" error={state.error} onRetry={() => state.refetch()} />;
  const signOff = state.data.sign_off;

  return (
    <div className="moderation">
      <header className="page__header">
        <Link href={`/batches/${batchId}`} className="back-link">
          ← Batch
        </Link>
        <h1>Moderation</h1>
        <p className="page__lede">
          {signOff ? (
            <>
              Signed off by {signOff.signed_off_by_name ?? "a department head"} on <LocalDate value={signOff.signed_off_at} style="date" />: marks are read-only
              until a department head reopens the batch.
            </>
          ) : (
            "A sample of scripts is second-marked blind by another marker; differences above the tolerance are reconciled, then a department head signs the batch off."
          )}
        </p>
        {state.data.can_sign_off ? <SignOffButton batchId={batchId} signedOff={signOff !== null} warnings={state.data.before_sign_off} onDone={refresh} /> : null}
      </header>
      {canModerate ? <SampleCard batchId={batchId} sample={state.data.sample} locked={signOff !== null} onDone={refresh} /> : null}
      <SecondMarkingCard batchId={batchId} locked={signOff !== null} />
      {canModerate ? (
        <>
          <Card title="Agreement">
            <Agreement batchId={batchId} />
          </Card>
          <DifferencesCard batchId={batchId} locked={signOff !== null} onDone={refresh} />
        </>
      ) : null}
    </div>
  );
}

/**
 * Sign off and reopen (department heads). Signing off asks to confirm when it would leave work undone,
 * with the counts; reopening always asks, since it lets marks change again.
 */
function SignOffButton({ batchId, signedOff, warnings, onDone }: { batchId: string; signedOff: boolean; warnings: SignOffWarnings; onDone: () => Promise<void> }) {
  const trpc = useTRPC();
  const [asking, setAsking] = useState<"sign-off" | "reopen" | null>(null);
  const close = async () => {
    setAsking(null);
    await onDone();
  };
  const signOff = useMutation(trpc.exam.moderation.signOff.mutationOptions({ onSuccess: close }));
  const reopen = useMutation(trpc.exam.moderation.reopen.mutationOptions({ onSuccess: close }));
  const failed = signOff.error ?? reopen.error;
  const undone = signOffWarnings(warnings);
  return (
    <div className="batch__actions">
      {signedOff ? (
        <Button variant="secondary" onClick={() => setAsking("reopen")}>
          Reopen the batch
        </Button>
      ) : (
        <Button
          loading={signOff.isPending && asking === null}
          loadingLabel="Signing off…"
          onClick={() => (undone.length > 0 ? setAsking("sign-off") : signOff.mutate({ batch_id: batchId }))}
        >
          Sign the batch off
        </Button>
      )}
      <ConfirmDialog
        open={asking === "sign-off"}
        title="Sign the batch off with work left?"
        confirmLabel="Sign off anyway"
        busyLabel="Signing off…"
        busy={signOff.isPending}
        onConfirm={() => signOff.mutate({ batch_id: batchId })}
        onCancel={() => setAsking(null)}
      >
        <ul className="moderation__warnings">
          {undone.map((line) => (
            <li key={line}>{line}</li>
          ))}
        </ul>
        <p>Once signed off, the batch accepts no marks, scans or page moves until a department head reopens it.</p>
      </ConfirmDialog>
      <ConfirmDialog
        open={asking === "reopen"}
        title="Reopen the batch?"
        confirmLabel="Reopen"
        busyLabel="Reopening…"
        busy={reopen.isPending}
        onConfirm={() => reopen.mutate({ batch_id: batchId })}
        onCancel={() => setAsking(null)}
      >
        <p>Its marks, scans and allocations can change again until it is signed off once more. The sign-off stays in its history.</p>
      </ConfirmDialog>
      {failed ? <p role="alert">{errorMessage(failed)}</p> : null}
    </div>
  );
}

type Sample = { tolerance: number; percent: number | null; submission_ids: string[] } | null;

function SampleCard({ batchId, sample, locked, onDone }: { batchId: string; sample: Sample; locked: boolean; onDone: () => Promise<void> }) {
  const trpc = useTRPC();
  const [share, setShare] = useState(String(sample?.percent ?? 10));
  const [tolerance, setTolerance] = useState(String(sample?.tolerance ?? 1));
  const [problem, setProblem] = useState<string | null>(null);
  const setSample = useMutation(trpc.exam.moderation.setSample.mutationOptions({ onSuccess: onDone }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const percent = typedNumber(share);
    const marks = typedNumber(tolerance);
    if (percent === null || !Number.isInteger(percent) || percent < 1 || percent > 100) return setProblem("Share: a whole percentage from 1 to 100");
    if (marks === null) return setProblem("Tolerance: a number of marks, 0 or more");
    setProblem(null);
    setSample.mutate({ batch_id: batchId, body: { percent, tolerance: marks } });
  };
  return (
    <Card title="Sample" description={sample ? `${sample.submission_ids.length} script${sample.submission_ids.length === 1 ? "" : "s"} in the sample.` : "No sample chosen yet."}>
      <form className="moderation__sample" onSubmit={submit}>
        <TextField label="Share of the marked scripts (%)" inputMode="numeric" value={share} onChange={(event) => setShare(event.target.value)} disabled={locked} />
        <TextField label="Tolerance (marks)" inputMode="decimal" value={tolerance} onChange={(event) => setTolerance(event.target.value)} disabled={locked} />
        <Button type="submit" loading={setSample.isPending} loadingLabel="Picking…" disabled={locked}>
          {sample ? "Pick the sample again" : "Pick the sample"}
        </Button>
      </form>
      <p className="muted">The pick is random but reproducible: the same share of the same marked scripts gives the same scripts.</p>
      {problem || setSample.error ? <p role="alert">{problem ?? errorMessage(setSample.error)}</p> : null}
    </Card>
  );
}

function SecondMarkingCard({ batchId, locked }: { batchId: string; locked: boolean }) {
  const trpc = useTRPC();
  const queue = useQuery(trpc.exam.moderation.queue.queryOptions({ batch_id: batchId }));
  const screen = (submissionId?: string) => `/batches/${batchId}/moderation/second-marking${submissionId ? `?submission=${submissionId}` : ""}`;
  const scripts = queue.data?.scripts ?? [];
  const questions = scripts.flatMap((script) => script.questions);
  const done = questions.filter((question) => question.second_marks !== null).length;
  return (
    <Card
      id="second-marking"
      title="Your second marking"
      description="Blind: the first marks are not shown. Second-mark on the marking screen: the scan beside the mark scheme and rubric, digits type the mark, Enter saves it and moves on."
    >
      {queue.isPending ? (
        <Loading>Loading the scripts…</Loading>
      ) : queue.isError ? (
        <LoadFailed what="The scripts to second-mark" error={queue.error} onRetry={() => queue.refetch()} />
      ) : scripts.length === 0 ? (
        <p className="muted">Nothing to second-mark: no script of the sample has a first mark by someone else.</p>
      ) : (
        <>
          <p>
            {done} of {questions.length} question{questions.length === 1 ? "" : "s"} second-marked, on {scripts.length} script{scripts.length === 1 ? "" : "s"}.{" "}
            {locked ? null : (
              <Link className={buttonClassName({})} href={screen(scripts.find((script) => script.questions.some((question) => question.second_marks === null))?.submission_id)}>
                {done === 0 ? "Start second marking" : done < questions.length ? "Go on second marking" : "Review the second marks"}
              </Link>
            )}
          </p>
          <ul className="moderation__scripts">
            {scripts.map((script) => {
              const marked = script.questions.filter((question) => question.second_marks !== null).length;
              return (
                <li key={script.submission_id}>
                  <Link href={screen(script.submission_id)}>{script.script_label}</Link>{" "}
                  <span className="muted">
                    {marked} of {script.questions.length} second-marked (question{script.questions.length === 1 ? "" : "s"} {script.questions.map((question) => question.label).join(", ")})
                  </span>
                </li>
              );
            })}
          </ul>
        </>
      )}
    </Card>
  );
}

function Agreement({ batchId }: { batchId: string }) {
  const trpc = useTRPC();
  const agreement = useQuery(trpc.exam.moderation.agreement.queryOptions({ batch_id: batchId }));
  if (agreement.isPending) return <Loading>Loading the agreement…</Loading>;
  if (agreement.isError) return <LoadFailed what="The agreement" error={agreement.error} onRetry={() => agreement.refetch()} />;
  return <AgreementTable agreement={agreement.data} />;
}

function DifferencesCard({ batchId, locked, onDone }: { batchId: string; locked: boolean; onDone: () => Promise<void> }) {
  const trpc = useTRPC();
  const differences = useQuery(trpc.exam.moderation.differences.queryOptions({ batch_id: batchId }));
  return (
    <Card title="Differences to reconcile" description="Pairs whose marks differ by more than the tolerance. The final mark you set becomes the mark; both marks are kept.">
      {differences.isPending ? (
        <Loading>Loading the differences…</Loading>
      ) : differences.isError ? (
        <LoadFailed what="The differences" error={differences.error} onRetry={() => differences.refetch()} />
      ) : differences.data.differences.length === 0 ? (
        <p className="muted">No difference above the tolerance.</p>
      ) : (
        <Table caption="Differences above the tolerance">
          <thead>
            <tr>
              <th scope="col">Script</th>
              <th scope="col">Question</th>
              <th scope="col" className="numeric">
                First mark
              </th>
              <th scope="col" className="numeric">
                Second mark
              </th>
              <th scope="col" className="numeric">
                Difference
              </th>
              <th scope="col">Final mark</th>
            </tr>
          </thead>
          <tbody>
            {differences.data.differences.map((row) => (
              <tr key={`${row.submission_id}/${row.question_id}`}>
                <th scope="row">{row.script_label}</th>
                <td>
                  {row.label} <span className="table__muted">out of {row.max_marks ?? "–"}</span>
                </td>
                <td className="numeric">
                  {row.first_marks} <span className="table__muted">{row.first_marker_name ?? ""}</span>
                </td>
                <td className="numeric">
                  {row.second_marks} <span className="table__muted">{row.second_marker_name ?? ""}</span>
                </td>
                <td className="numeric">{signedMarks(row.difference)}</td>
                <td>
                  <ReconcileField row={row} locked={locked} onDone={onDone} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Card>
  );
}

function ReconcileField({
  row,
  locked,
  onDone,
}: {
  row: { submission_id: string; question_id: string; script_label: string; label: string; final_marks: number | null };
  locked: boolean;
  onDone: () => Promise<void>;
}) {
  const trpc = useTRPC();
  const [value, setValue] = useState(row.final_marks === null ? "" : String(row.final_marks));
  const [problem, setProblem] = useState<string | null>(null);
  const reconcile = useMutation(trpc.exam.moderation.reconcile.mutationOptions({ onSuccess: onDone }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const marks = typedNumber(value);
    if (marks === null) return setProblem("A number of marks");
    setProblem(null);
    reconcile.mutate({ submission_id: row.submission_id, body: { question_id: row.question_id, final_marks: marks } });
  };
  // An error is the value's: a new value clears the refusal of the last, and a typing error goes once it is a number.
  const edit = (typed: string) => {
    setValue(typed);
    reconcile.reset();
    if (problem && typedNumber(typed) !== null) setProblem(null);
  };
  return (
    <form className="moderation__mark" onSubmit={submit} aria-label={`Final mark of ${row.script_label}, question ${row.label}`}>
      <TextField
        label={row.final_marks === null ? "Not reconciled" : `Final: ${row.final_marks}`}
        inputMode="decimal"
        value={value}
        onChange={(event) => edit(event.target.value)}
        disabled={locked}
        error={problem ?? (reconcile.error ? errorMessage(reconcile.error) : undefined)}
      />
      <Button type="submit" variant="secondary" size="small" loading={reconcile.isPending} loadingLabel="Saving…" disabled={locked}>
        Set final mark
      </Button>
    </form>
  );
}
