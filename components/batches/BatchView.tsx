"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { Badge } from "@/components/ui/Badge";
import { Button, buttonClassName } from "@/components/ui/Button";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";
import { Status } from "@/components/ui/Status";
import { Table } from "@/components/ui/Table";
import { Loading } from "@/components/ui/Loading";
import { Notice } from "@/components/ui/Notice";
import { LocalDate, useDateFormat } from "@/components/ui/dates";
import { useTRPC } from "@/components/trpc/client";
import { AssignScanDialog, type UnmatchedScan } from "./AssignScanDialog";
import { BatchProgressBar } from "./ProgressBar";
import { PrintScriptsDialog } from "./print/PrintScriptsDialog";
import { ScanIntake } from "./ScanIntake";
import { printedScriptNumber } from "./script-label";
import { IntakeProgress, intakeRefreshMs } from "./intake/IntakeProgress";
import { MarkersCard } from "./MarkersCard";
import { ReleaseCard } from "./ReleaseCard";
import { ReturnsDownloads } from "./ReturnsDownloads";
import { ReviewRequestsLink } from "./reviews/ReviewRequestsLink";
import { SubmissionStateBadge } from "./SubmissionStateBadge";
import { countSubmissionStates, submissionState } from "@/lib/rules/submission-state";
import { errorMessage } from "@/lib/trpc/errors";
import { hasReadAreas } from "@/components/answers/answers-state";

/** How often the queue refreshes, so progress made by colleagues shows up. */
const QUEUE_REFRESH_MS = 4000;

/** The batch page: progress, the release of results to students, scan intake, the queue, archive and the CSV download. */
export function BatchView({ batchId, viewerId }: { batchId: string; viewerId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const formatDate = useDateFormat();
  const queue = useQuery({ ...trpc.exam.batches.queue.queryOptions({ batch_id: batchId }), refetchInterval: QUEUE_REFRESH_MS });
  const templateId = queue.data?.batch.template_id;
  const template = useQuery({ ...trpc.exam.templates.get.queryOptions({ template_id: templateId ?? "" }), enabled: Boolean(templateId), staleTime: 5 * 60_000 });
  const intake = useQuery({ ...trpc.exam.intake.status.queryOptions({ batch_id: batchId }), refetchInterval: (query) => intakeRefreshMs(query.state.data) });
  // What the viewer may do here (batch-gate.ts): mark (owner, head, marker) or only read; and whether a head signed the batch off.
  const access = useQuery(trpc.exam.markers.myWork.queryOptions({ batch_id: batchId }));
  const moderation = useQuery(trpc.exam.moderation.state.queryOptions({ batch_id: batchId }));
  const archive = useMutation(trpc.exam.batches.archive.mutationOptions());
  const attendance = useMutation(trpc.exam.submissions.setAbsence.mutationOptions());
  const anonymity = useMutation(trpc.exam.batches.setAnonymous.mutationOptions());
  const [confirming, setConfirming] = useState(false);
  const [printing, setPrinting] = useState(false);
  const [printed, setPrinted] = useState<string | null>(null);
  const [assigning, setAssigning] = useState<UnmatchedScan | null>(null);
  /** Scans assigned from this page, by their former id: the intake list says where each one went. */
  const [assignedTo, setAssignedTo] = useState<Record<string, string>>({});
  const [lastAssigned, setLastAssigned] = useState<string | null>(null);

  const refreshQueue = () => queryClient.invalidateQueries({ queryKey: trpc.exam.batches.queue.queryKey({ batch_id: batchId }) });
  // A pile that has just been filed changes the queue: its students now have scans.
  const pilesDone = intake.data?.piles.filter((pile) => pile.status === "done").length ?? 0;
  useEffect(() => {
    if (pilesDone > 0) void queryClient.invalidateQueries({ queryKey: trpc.exam.batches.queue.queryKey({ batch_id: batchId }) });
  }, [pilesDone, queryClient, trpc, batchId]);
  // Never rejects: a refusal shows above the queue, and the queue is read again either way.
  const setAbsence = async (submissionId: string, absent: boolean) => {
    await attendance.mutateAsync({ submission_id: submissionId, absent }).catch(() => null);
    await refreshQueue();
  };
  // Never rejects: a refusal shows under the switch, and the queue is read again either way.
  const setAnonymous = async (anonymous: boolean) => {
    await anonymity.mutateAsync({ batch_id: batchId, anonymous }).catch(() => null);
    await refreshQueue();
  };
  // Never rejects: a failed archive keeps the dialog open with the mutation's error, and invalidating
  // swallows refetch failures (the queries show them).
  const archiveBatch = async () => {
    const archivedNow = await archive.mutateAsync({ batch_id: batchId }).catch(() => null);
    if (!archivedNow) return; // the dialog stays open and shows why
    setConfirming(false);
    await refreshQueue();
    await queryClient.invalidateQueries({ queryKey: trpc.exam.batches.overview.queryKey() });
  };

  if (queue.isPending) {
    return <Loading>Loading the batch…</Loading>;
  }
  if (queue.isError) {
    return (
      <Status tone="error" title="The batch could not be loaded" action={<Button variant="secondary" size="small" onClick={() => void queue.refetch()}>Try again</Button>}>
        {errorMessage(queue.error)} <Link href="/batches">Back to batches</Link>
      </Status>
    );
  }

  const { batch } = queue.data;
  const submissions = queue.data.submissions.map((s) => ({ ...s, marks_entered: s.mark_entry_count }));
  const states = countSubmissionStates(submissions);
  const leafCount = template.data?.questions.filter((q) => !q.is_container).length;
  const archived = batch.status === "archived";
  const scanned = submissions.filter((s) => s.scan_url);
  const firstToMark = scanned.find((s) => s.status !== "complete") ?? scanned[0];
  const students = submissions
    .filter((s): s is typeof s & { student_id: string } => Boolean(s.student_id))
    .map((s) => ({ id: s.student_id, name: s.student_name ?? "Unnamed student", hasScan: Boolean(s.scan_url) }));
  // An unmatched scan: a scan without a student. Only the owner of an open batch may assign it.
  const unmatched = new Map(submissions.filter((s) => !s.has_student && s.scan_url).map((s) => [s.id, s]));
  const isOwner = batch.teacher_id === viewerId;
  const signedOff = Boolean(moderation.data?.sign_off);
  // Archived or signed off: nothing of the batch changes (the server refuses with 409).
  const locked = archived || signedOff;
  const canAssign = isOwner && !locked;
  // Until the viewer's part is known, offer no writes: a colleague who only reads sees none.
  const mayMark = (access.data?.marks ?? "nothing") !== "nothing";
  // In an anonymous batch the server sends no names: a script is its number ("Script 17").
  const anonymous = batch.anonymous;
  const rowName = (submission: (typeof submissions)[number]) => (anonymous ? `Script ${submission.script_number}` : submission.student_name);
  const openAssign = (submissionId: string) => {
    const scan = unmatched.get(submissionId);
    if (scan) setAssigning({ id: scan.id, uploadedAt: scan.created_at });
  };

  return (
    <div className="batch">
      <header className="page__header batch__header">
        <Link href="/batches" className="back-link">
          ← Batches
        </Link>
        <div className="batch__title-row">
          <h1>{batch.title}</h1>
          <Badge tone={archived ? "neutral" : "success"}>{archived ? "Archived" : "Open"}</Badge>
          {anonymous ? <Badge tone="neutral">Anonymous marking</Badge> : null}
        </div>
        {template.data && template.data.title !== batch.title ? <p className="page__lede">{template.data.title}</p> : null}
        <div className="batch__actions">
          {unmatched.size > 0 && canAssign ? (
            <Link className={buttonClassName({ variant: "secondary" })} href={`/batches/${batchId}/identify`}>
              Identify {unmatched.size} script{unmatched.size === 1 ? "" : "s"}
            </Link>
          ) : null}
          {firstToMark && mayMark ? (
            <Link className={buttonClassName({})} href={`/batches/${batchId}/mark?submission=${firstToMark.id}`}>
              {locked ? "Read the scripts" : states.marked > 0 ? "Continue marking" : "Start marking"}
            </Link>
          ) : null}
          {template.data && hasReadAreas(template.data.response_areas) && scanned.length > 0 ? (
            <Link className={buttonClassName({ variant: "secondary" })} href={`/batches/${batchId}/answers`}>
              Answers read from the scans
            </Link>
          ) : null}
          <Link className={buttonClassName({ variant: "secondary" })} href={`/batches/${batchId}/results`}>
            Results
          </Link>
          <ReviewRequestsLink batchId={batchId} />
          <Link className={buttonClassName({ variant: "secondary" })} href={`/batches/${batchId}/moderation`}>
            Moderation
          </Link>
          <a className={buttonClassName({ variant: "secondary" })} href={`/api/exam/batches/${batchId}/export/csv`} download>
            Download results (CSV)
          </a>
          {isOwner && !locked ? (
            <Button variant="secondary" onClick={() => setPrinting(true)}>
              Print scripts
            </Button>
          ) : null}
          {isOwner && !archived ? (
            <Button variant="danger-quiet" onClick={() => setConfirming(true)}>
              Archive batch
            </Button>
          ) : null}
        </div>
      </header>

      {printed ? <Notice onDismiss={() => setPrinted(null)}>{printed}</Notice> : null}
      {signedOff && !archived ? (
        <p className="muted" role="note">
          Signed off: its marks, scans and pages are read-only until a department head reopens the batch.
        </p>
      ) : null}
      {access.data && !isOwner && !mayMark ? (
        <p className="muted" role="note">
          This batch is another teacher&apos;s: you can follow its progress and read its results. To mark it, ask its owner to invite you as a marker.
        </p>
      ) : null}

      {isOwner ? (
        <section className="card batch__anonymity" aria-labelledby="anonymity-heading">
          <h2 id="anonymity-heading" className="visually-hidden">
            Anonymous marking
          </h2>
          <label className="checkbox">
            <input
              type="checkbox"
              role="switch"
              checked={anonymous}
              disabled={archived || anonymity.isPending}
              onChange={(event) => void setAnonymous(event.currentTarget.checked)}
              aria-describedby="anonymity-hint"
            />
            Anonymous marking
          </label>
          <p className="field__hint" id="anonymity-hint">
            {anonymous
              ? "On: everyone marking this batch, you included, sees script numbers instead of names, and the name box on the scans is blurred. You can reveal the names on the results page."
              : "Off: markers see each script's student. Turn it on to mark by script number, with the name box on the scans blurred."}
          </p>
          {anonymity.isError ? (
            <Status tone="error" title="Anonymous marking not changed">
              {errorMessage(anonymity.error)}
            </Status>
          ) : null}
        </section>
      ) : anonymous ? (
        <p className="muted">This batch is marked anonymously: scripts are shown by number, and only the batch&apos;s owner can reveal the names.</p>
      ) : null}

      <section className="card" aria-labelledby="batch-progress-heading">
        <header className="card__header">
          <h2 id="batch-progress-heading">Progress</h2>
        </header>
        <BatchProgressBar states={states} />
      </section>

      <ReleaseCard batchId={batchId} />
      <ReturnsDownloads batchId={batchId} />

      <MarkersCard
        batchId={batchId}
        isOwner={isOwner}
        archived={locked}
        questions={(template.data?.questions ?? []).filter((question) => !question.is_container).sort((a, b) => a.order - b.order || a.label.localeCompare(b.label))}
      />

      {isOwner ? (
        <ScanIntake
          batchId={batchId}
          students={students}
          disabled={locked}
          printed={intake.data?.printed ?? false}
          anonymous={anonymous}
          onUploaded={() => {
            void refreshQueue();
            void intake.refetch();
          }}
          unmatchedAction={(submissionId) =>
            assignedTo[submissionId] ? (
              <span>Assigned to {assignedTo[submissionId]}.</span>
            ) : unmatched.has(submissionId) && canAssign ? (
              <button type="button" className="link-button" onClick={() => openAssign(submissionId)}>
                Assign to student
              </button>
            ) : null
          }
        />
      ) : null}

      {intake.data ? <IntakeProgress batchId={batchId} status={intake.data} canIdentify={canAssign} anonymous={anonymous} /> : null}

      <section className="batch__queue" aria-labelledby="queue-heading">
        <h2 id="queue-heading" className="section-heading">
          Queue: {submissions.length} submission{submissions.length === 1 ? "" : "s"}
        </h2>
        {attendance.isError ? (
          <Status tone="error" title="Attendance not changed">
            {errorMessage(attendance.error)}
          </Status>
        ) : null}
        {lastAssigned ? (
          <Status tone="success" title={`Scan assigned to ${lastAssigned}`}>
            Their row below now has the scan, and any marks it had.
          </Status>
        ) : null}
        {submissions.length === 0 ? (
          <p className="muted">No submissions yet. Upload scans above: each becomes a submission to mark.</p>
        ) : (
          <Table caption="Submissions in this batch">
            <thead>
              <tr>
                <th scope="col">{anonymous ? "Script" : "Student"}</th>
                <th scope="col">Status</th>
                <th scope="col" className="numeric">Marks entered</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {submissions.map((submission) => {
                const state = submissionState(submission);
                const name = rowName(submission) ?? "this scan";
                return (
                  <tr key={submission.id} data-testid="queue-row">
                    <th scope="row">
                      {anonymous ? (
                        <>
                          Script {submission.script_number}
                          {submission.has_student ? null : <span className="table__muted"> (no student yet)</span>}
                        </>
                      ) : (
                        submission.student_name ??
                        (printedScriptNumber(submission.qr_code) ? (
                          <span className="table__muted">Script {printedScriptNumber(submission.qr_code)} (no student yet)</span>
                        ) : (
                          <span className="table__muted">
                            Unmatched scan{" "}
                            (<LocalDate value={submission.created_at} style="time" />)
                          </span>
                        ))
                      )}
                    </th>
                    <td>
                      <SubmissionStateBadge
                        submission={submission}
                        progress={leafCount === undefined ? undefined : { marked: submission.mark_entry_count, of: leafCount }}
                      />
                    </td>
                    <td className="numeric">
                      {submission.mark_entry_count}
                      {leafCount !== undefined ? <span className="table__muted"> / {leafCount}</span> : null}
                    </td>
                    <td className="table__actions">
                      {submission.scan_url ? (
                        <span className="row-actions">
                          {unmatched.has(submission.id) && canAssign ? (
                            <Button
                              variant="secondary"
                              size="small"
                              onClick={() => openAssign(submission.id)}
                              aria-label={`Assign to student: the scan uploaded at ${formatDate(submission.created_at, "time")}`}
                            >
                              Assign to student
                            </Button>
                          ) : null}
                          {mayMark ? (
                            <Link href={`/batches/${batchId}/mark?submission=${submission.id}`} aria-label={`${locked ? "Read" : "Mark"} ${rowName(submission) ?? "unmatched scan"}`}>
                              {locked ? "Read" : "Mark"}
                            </Link>
                          ) : null}
                        </span>
                      ) : state === "no_scan" && mayMark && !locked ? (
                        <Button
                          variant="secondary"
                          size="small"
                          disabled={attendance.isPending}
                          onClick={() => void setAbsence(submission.id, true)}
                          aria-label={`Mark ${name} absent`}
                        >
                          Mark absent
                        </Button>
                      ) : state === "absent" && mayMark && !locked ? (
                        <Button variant="secondary" size="small" disabled={attendance.isPending} onClick={() => void setAbsence(submission.id, false)} aria-label={`Undo: ${name} was not absent`}>
                          Undo
                        </Button>
                      ) : null}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </Table>
        )}
      </section>

      <AssignScanDialog
        scan={assigning}
        rosterWithoutScan={students.filter((s) => !s.hasScan)}
        studentsInBatch={new Set(students.map((s) => s.id))}
        onClose={() => setAssigning(null)}
        onAssigned={async (studentName) => {
          if (assigning) setAssignedTo((all) => ({ ...all, [assigning.id]: studentName }));
          setLastAssigned(studentName);
          await refreshQueue();
        }}
      />

      <PrintScriptsDialog batchId={batchId} anonymous={anonymous} open={printing} onClose={() => setPrinting(false)} onPrinted={setPrinted} />

      <ConfirmDialog
        open={confirming}
        title="Archive this batch?"
        confirmLabel="Archive"
        busyLabel="Archiving…"
        busy={archive.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() => void archiveBatch()}
      >
        <p>An archived batch takes no more scans or marks. Its results and CSV stay available.</p>
        {archive.isError ? <p role="alert">{errorMessage(archive.error)}</p> : null}
      </ConfirmDialog>
    </div>
  );
}
