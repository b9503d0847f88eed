"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { errorMessage } from "@/lib/trpc/errors";
import { Button } from "@/components/ui/Button";
import { SelectField, TextField } from "@/components/ui/Field";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Status } from "@/components/ui/Status";
import { useTRPC } from "@/components/trpc/client";
import { followingChoice, matchesStudentSearch, MAX_STUDENT_OPTIONS, noStudentChosen, studentSearchNeedle } from "./student-search";

interface StudentPickerProps {
  classId: string;
  /** Students already in the class: not offered again. */
  enrolledIds: ReadonlySet<string>;
  onAdded: (name: string) => unknown;
}

/**
 * A searchable choice of the school's students: typing narrows the list (name or email), the select
 * keeps it a native, keyboard- and screen-reader-friendly control.
 */
export function StudentPicker({ classId, enrolledIds, onAdded }: StudentPickerProps) {
  const trpc = useTRPC();
  const schoolStudents = useQuery(trpc.classes.schoolStudents.queryOptions());
  const [search, setSearch] = useState("");
  const [chosen, setChosen] = useState("");
  const [error, setError] = useState<string | null>(null);
  const add = useMutation(trpc.classes.addStudent.mutationOptions());

  const needle = studentSearchNeedle(search);
  const candidates = (schoolStudents.data?.students ?? []).filter((student) => !enrolledIds.has(student.id));
  const matches = candidates.filter((student) => matchesStudentSearch(student, needle));
  const shown = matches.slice(0, MAX_STUDENT_OPTIONS);
  const selected = followingChoice(shown, chosen);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const student = candidates.find((candidate) => candidate.id === selected);
    if (!student) {
      setError(noStudentChosen(needle));
      return;
    }
    setError(null);
    add.mutate(
      { classId, studentId: student.id },
      {
        onSuccess: () => {
          setSearch("");
          setChosen("");
          return onAdded(student.full_name);
        },
      },
    );
  }

  if (schoolStudents.isError) {
    return (
      <LoadFailed what="The school's students" error={schoolStudents.error} onRetry={() => schoolStudents.refetch()} />
    );
  }

  return (
    <form className="student-picker" onSubmit={submit} noValidate aria-label="Add a student to the class">
      <div className="form-row">
        <TextField
          label="Search students"
          type="search"
          hint={
            schoolStudents.isPending
              ? "Loading the school's students…"
              : `${matches.length} of ${candidates.length} students not in this class${matches.length > MAX_STUDENT_OPTIONS ? ` (first ${MAX_STUDENT_OPTIONS} shown)` : ""}.`
          }
          placeholder="Name or email"
          autoComplete="off"
          value={search}
          onChange={(event) => setSearch(event.currentTarget.value)}
        />
        <SelectField
          label="Student"
          value={selected}
          onChange={(event) => setChosen(event.currentTarget.value)}
          disabled={shown.length === 0}
          error={error}
          options={
            shown.length
              ? shown.map((student) => ({ value: student.id, label: `${student.full_name} (${student.email})` }))
              : [{ value: "", label: schoolStudents.isPending ? "Loading…" : "No matching student" }]
          }
        />
        <div className="form-row__action">
          <Button type="submit" loading={add.isPending} loadingLabel="Adding…" disabled={shown.length === 0}>
            Add to class
          </Button>
        </div>
      </div>
      {add.isError ? <Status tone="error" title="The student was not added">{errorMessage(add.error)}</Status> : null}
    </form>
  );
}
