"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { SelectField, TextField } from "@/components/ui/Field";
import { FormDialog } from "@/components/ui/FormDialog";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Loading } from "@/components/ui/Loading";
import { Status } from "@/components/ui/Status";
import { Table } from "@/components/ui/Table";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import { printedScriptNumber } from "../script-label";

interface MovablePage {
  id: string;
  label: string;
}

/** Where a target choice points: a submission of the batch, or a new script without a student. */
const NEW_SCRIPT = "new";

/**
 * Every scanned page of a batch, pile by pile, with where it went: a student's script and its page, a
 * script still to identify, set aside as scanned twice, or refused. Any page but a refused one can be
 * moved by hand to another student, another script or a new script of its own, at a chosen page.
 */
export function ScanPagesView({ batchId, viewerId }: { batchId: string; viewerId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const pages = useQuery(trpc.exam.intake.pages.queryOptions({ batch_id: batchId }));
  const queue = useQuery(trpc.exam.batches.queue.queryOptions({ batch_id: batchId }));
  const move = useMutation(trpc.exam.intake.movePage.mutationOptions());
  const [moving, setMoving] = useState<MovablePage | null>(null);
  const [target, setTarget] = useState("");
  const [position, setPosition] = useState("");
  const [moved, setMoved] = useState<string | null>(null);
  const [positionProblem, setPositionProblem] = useState<string | null>(null);

  if (pages.isPending || queue.isPending) return <Loading>Loading the scanned pages…</Loading>;
  if (pages.isError) return <LoadFailed what="The scanned pages" error={pages.error} onRetry={() => pages.refetch()} />;
  if (queue.isError) return <LoadFailed what="The batch" error={queue.error} onRetry={() => queue.refetch()} />;

  const canMove = queue.data.batch.teacher_id === viewerId && queue.data.batch.status === "open";
  // An anonymous batch's scripts are their numbers: the server sends no names.
  const anonymous = queue.data.batch.anonymous;
  const scriptName = (submission: { student_name: string | null; has_student: boolean; script_number: number; qr_code: string | null }) =>
    anonymous
      ? `Script ${submission.script_number}${submission.has_student ? "" : " (no student yet)"}`
      : (submission.student_name ??
        (printedScriptNumber(submission.qr_code) ? `Script ${printedScriptNumber(submission.qr_code)} (no student yet)` : "A script without a student"));
  const submissionsById = new Map(queue.data.submissions.map((submission) => [submission.id, submission]));
  const targets = [
    ...queue.data.submissions.filter((submission) => submission.has_student).map((submission) => ({ value: submission.id, label: scriptName(submission) })),
    ...queue.data.submissions.filter((submission) => !submission.has_student).map((submission) => ({ value: submission.id, label: scriptName(submission) })),
    { value: NEW_SCRIPT, label: "A new script of its own (to identify)" },
  ];
  const chosenTarget = targets.some((option) => option.value === target) ? target : (targets[0]?.value ?? NEW_SCRIPT);

  const where = (page: (typeof pages.data.pages)[number]) => {
    switch (page.placement) {
      case "filed": {
        const submission = page.submission_id ? submissionsById.get(page.submission_id) : undefined;
        return `${submission ? scriptName(submission) : (page.student_name ?? "A script")}, page ${page.page_number}`;
      }
      case "duplicate":
        return `Scanned twice: ${page.note ?? "kept once"}`;
      case "refused":
        return `Refused: ${page.note ?? "printed for another batch"}`;
      case "reading":
        return "Being read…";
    }
  };

  function submit() {
    if (!moving) return;
    const typed = position.trim();
    if (typed !== "" && !/^[1-9]\d{0,2}$/.test(typed)) {
      setPositionProblem("Enter a page number from 1 to 999, or leave it empty.");
      return;
    }
    setPositionProblem(null);
    const pageNumber = typed === "" ? undefined : Number(typed);
    move.mutate(
      {
        page_id: moving.id,
        ...(chosenTarget === NEW_SCRIPT ? { new_script: true as const } : { submission_id: chosenTarget }),
        ...(pageNumber === undefined ? {} : { page_number: pageNumber }),
      },
      {
        onSuccess: (result) => {
          setMoved(`${moving.label} is now page ${result.page.page_number} of ${scriptName(result.submission)}.`);
          setMoving(null);
          void queryClient.invalidateQueries({ queryKey: trpc.exam.intake.pages.queryKey({ batch_id: batchId }) });
          void queryClient.invalidateQueries({ queryKey: trpc.exam.batches.queue.queryKey({ batch_id: batchId }) });
        },
      },
    );
  }

  return (
    <div className="scan-pages">
      <header className="page__header">
        <Link href={`/batches/${batchId}`} className="back-link">
          ← {queue.data.batch.title}
        </Link>
        <h1>Scanned pages</h1>
        <p className="page__lede">Every page of every pile uploaded to this batch, and where it went. A page in the wrong script can be moved.</p>
      </header>
      {moved ? (
        <Status tone="success" title="Page moved">
          {moved}
        </Status>
      ) : null}
      {pages.data.pages.length === 0 ? (
        <p className="muted">No pile has been uploaded to this batch yet.</p>
      ) : (
        <Table caption="Scanned pages, in the order of their piles">
          <thead>
            <tr>
              <th scope="col">Page</th>
              <th scope="col">Pile</th>
              <th scope="col">Where it is</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {pages.data.pages.map((page) => {
              const label = `Page ${page.pile_page} of ${page.pile_name}`;
              return (
                <tr key={page.id} data-testid="scan-page-row">
                  <td>
                    <a href={`/api/exam/scan-pages/${page.id}/image`} target="_blank" rel="noreferrer" className="scan-pages__thumb">
                      <img src={`/api/exam/scan-pages/${page.id}/image`} alt={`${label}, upright`} loading="lazy" width={72} height={102} />
                    </a>
                  </td>
                  <td>
                    {page.pile_name}, page {page.pile_page}
                  </td>
                  <td>{where(page)}</td>
                  <td className="table__actions">
                    {canMove && page.placement !== "refused" && page.placement !== "reading" ? (
                      <Button
                        variant="secondary"
                        size="small"
                        aria-label={`Move ${label}`}
                        onClick={() => {
                          move.reset();
                          setPosition("");
                          setPositionProblem(null);
                          setTarget(page.submission_id ?? "");
                          setMoving({ id: page.id, label });
                        }}
                      >
                        Move…
                      </Button>
                    ) : null}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </Table>
      )}
      <FormDialog
        open={Boolean(moving)}
        title="Move a page"
        description={moving ? `${moving.label}. Its script and the one it goes to are rebuilt; marks stay with their scripts.` : undefined}
        submitLabel="Move page"
        busyLabel="Moving…"
        busy={move.isPending}
        onSubmit={submit}
        onClose={() => setMoving(null)}
      >
        <SelectField label="Move to" value={chosenTarget} onChange={(event) => setTarget(event.currentTarget.value)} options={targets} />
        <TextField
          label="As page"
          inputMode="numeric"
          value={position}
          onChange={(event) => setPosition(event.currentTarget.value)}
          hint="Leave empty for the first page the script is missing."
          error={positionProblem}
        />
        {move.isError ? (
          <Status tone="error" title="The page was not moved">
            {errorMessage(move.error)}
          </Status>
        ) : null}
      </FormDialog>
    </div>
  );
}
