"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { SelectField, TextField } from "@/components/ui/Field";
import { FormDialog } from "@/components/ui/FormDialog";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Status } from "@/components/ui/Status";
import { useDateFormat } from "@/components/ui/dates";
import { followingChoice, matchesStudentSearch, MAX_STUDENT_OPTIONS, noStudentChosen, studentSearchNeedle } from "@/components/classes/student-search";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";

export interface UnmatchedScan {
  id: string;
  /** When the scan was uploaded: what tells two unmatched scans apart in the queue. */
  uploadedAt: Date;
}

interface AssignScanDialogProps {
  scan: UnmatchedScan | null;
  /** Students on the batch's roster whose submission has no scan yet, in roster order. */
  rosterWithoutScan: ReadonlyArray<{ id: string; name: string }>;
  /** Every student with a submission in the batch: a school student among them is not offered twice. */
  studentsInBatch: ReadonlySet<string>;
  onClose: () => void;
  /** Refreshes what shows the scan; never rejects. */
  onAssigned: (studentName: string) => Promise<void>;
}

/**
 * "Assign to student" for an unmatched scan: a student of the roster still without a scan, or, when the
 * script belongs to someone not on the roster, any student of the school. The scan and its marks move
 * to that student (exam.submissions.assign).
 */
export function AssignScanDialog({ scan, rosterWithoutScan, studentsInBatch, onClose, onAssigned }: AssignScanDialogProps) {
  const formatDate = useDateFormat();
  const trpc = useTRPC();
  const assign = useMutation(trpc.exam.submissions.assign.mutationOptions());
  // Without a roster slot left (or without a roster at all), the school's students are the only choice.
  const [wholeSchool, setWholeSchool] = useState(false);
  const showSchool = wholeSchool || rosterWithoutScan.length === 0;
  const schoolStudents = useQuery({ ...trpc.classes.schoolStudents.queryOptions(), enabled: Boolean(scan) && showSchool });
  const [search, setSearch] = useState("");
  const [chosen, setChosen] = useState("");
  const [problem, setProblem] = useState<string | null>(null);

  const needle = studentSearchNeedle(search);
  const schoolChoices = (schoolStudents.data?.students ?? [])
    .filter((student) => !studentsInBatch.has(student.id))
    .filter((student) => matchesStudentSearch(student, needle))
    .map((student) => ({ id: student.id, name: `${student.full_name} (${student.email})` }));
  const choices = showSchool ? schoolChoices.slice(0, MAX_STUDENT_OPTIONS) : rosterWithoutScan;
  const selected = followingChoice(choices, chosen);

  function close() {
    assign.reset();
    setWholeSchool(false);
    setSearch("");
    setChosen("");
    setProblem(null);
    onClose();
  }

  function submit() {
    if (!scan) return;
    const student = choices.find((choice) => choice.id === selected);
    if (!student) {
      setProblem(noStudentChosen(needle));
      return;
    }
    setProblem(null);
    assign.mutate(
      { submission_id: scan.id, student_id: student.id },
      {
        onSuccess: (submission) => void onAssigned(submission.student_name ?? student.name).then(close),
      },
    );
  }

  const uploaded = scan ? formatDate(scan.uploadedAt, "dateTime") : "";
  return (
    <FormDialog
      open={Boolean(scan)}
      title="Assign scan to a student"
      description={
        <>
          Uploaded {uploaded}.{" "}
          {scan ? (
            <a href={`/api/exam/submissions/${scan.id}/scan`} target="_blank" rel="noreferrer">
              Open the scan
            </a>
          ) : null}{" "}
          to read the name on it. The scan and any marks already given to it move to the student&apos;s submission.
        </>
      }
      submitLabel="Assign scan"
      busyLabel="Assigning…"
      busy={assign.isPending}
      onSubmit={submit}
      onClose={close}
    >
      {rosterWithoutScan.length === 0 ? (
        <p className="muted">
          {studentsInBatch.size === 0
            ? "This batch has no class list: choose any student of the school."
            : "Every student on this batch's list already has a scan: choose another student of the school."}
        </p>
      ) : null}
      {showSchool ? (
        schoolStudents.isError ? (
          <LoadFailed what="The school's students" error={schoolStudents.error} onRetry={() => schoolStudents.refetch()} />
        ) : (
          <TextField
            label="Search students"
            type="search"
            placeholder="Name or email"
            autoComplete="off"
            value={search}
            onChange={(event) => setSearch(event.currentTarget.value)}
            hint={
              schoolStudents.isPending
                ? "Loading the school's students…"
                : `${schoolChoices.length} student${schoolChoices.length === 1 ? "" : "s"} of the school without a submission in this batch${
                    schoolChoices.length > MAX_STUDENT_OPTIONS ? ` (first ${MAX_STUDENT_OPTIONS} shown)` : ""
                  }.`
            }
          />
        )
      ) : null}
      <SelectField
        label="Student"
        value={selected}
        onChange={(event) => setChosen(event.currentTarget.value)}
        disabled={choices.length === 0}
        error={problem}
        hint={showSchool ? undefined : `${rosterWithoutScan.length} student${rosterWithoutScan.length === 1 ? "" : "s"} of this batch without a scan yet.`}
        options={
          choices.length > 0
            ? choices.map((choice) => ({ value: choice.id, label: choice.name }))
            : [{ value: "", label: showSchool && schoolStudents.isPending ? "Loading…" : "No student to choose" }]
        }
      />
      {rosterWithoutScan.length > 0 ? (
        <label className="checkbox">
          <input type="checkbox" checked={wholeSchool} onChange={(event) => setWholeSchool(event.currentTarget.checked)} />
          The student is not on this batch&apos;s list (choose from the whole school)
        </label>
      ) : null}
      {assign.isError ? (
        <Status tone="error" title="The scan was not assigned">
          {errorMessage(assign.error)}
        </Status>
      ) : null}
    </FormDialog>
  );
}
