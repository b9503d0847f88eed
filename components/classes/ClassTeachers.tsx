"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Button } from "@/components/ui/Button";
import { SelectField } from "@/components/ui/Field";
import { Status } from "@/components/ui/Status";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";

interface Teacher {
  id: string;
  full_name: string;
}

const NONE = "";

/**
 * Who teaches a class, for its school's admins: the main teacher and the other teachers, chosen from the
 * school's staff. Every teacher of a class sees it in their New batch dialog.
 */
export function ClassTeachers({
  classId,
  className,
  mainTeacher,
  otherTeachers,
  onChanged,
}: {
  classId: string;
  className: string;
  mainTeacher: Teacher | null;
  otherTeachers: Teacher[];
  onChanged: (message: string) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const staff = useQuery(trpc.classes.schoolStaff.queryOptions());
  const [adding, setAdding] = useState(NONE);
  const set = useMutation(
    trpc.classes.setTeachers.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.classes.list.queryKey() }),
    }),
  );
  const others = otherTeachers.map((teacher) => teacher.id);
  const nameOf = (id: string) => staff.data?.staff.find((person) => person.id === id)?.full_name ?? otherTeachers.find((teacher) => teacher.id === id)?.full_name ?? "The teacher";
  const save = (teacherId: string | null, otherTeacherIds: string[], message: string) => {
    set.mutate({ classId, teacherId, otherTeacherIds }, { onSuccess: () => onChanged(message) });
  };
  const staffOptions = (staff.data?.staff ?? []).map((person) => ({ value: person.id, label: person.full_name }));
  const addable = staffOptions.filter((option) => option.value !== mainTeacher?.id && !others.includes(option.value));

  return (
    <div className="stack">
      <SelectField
        label="Main teacher"
        value={mainTeacher?.id ?? NONE}
        disabled={set.isPending || staff.isPending}
        onChange={(event) => {
          const chosen = event.currentTarget.value || null;
          save(chosen, others.filter((id) => id !== chosen), chosen ? `${nameOf(chosen)} is now the main teacher of ${className}.` : `${className} has no main teacher now.`);
        }}
        options={[{ value: NONE, label: staff.isPending ? "Loading the staff…" : "No main teacher" }, ...staffOptions]}
        hint="The teacher the class belongs to; batches of the class are theirs to start."
      />
      <div className="stack">
        <h3 className="field__label">Other teachers</h3>
        {otherTeachers.length === 0 ? (
          <p className="muted">Nobody else teaches this class.</p>
        ) : (
          <ul className="class-teachers__list" aria-label={`Other teachers of ${className}`}>
            {otherTeachers.map((teacher) => (
              <li key={teacher.id} className="cluster">
                <span>{teacher.full_name}</span>
                <Button
                  variant="danger-quiet"
                  size="small"
                  disabled={set.isPending}
                  aria-label={`Remove ${teacher.full_name} from the class's teachers`}
                  onClick={() => save(mainTeacher?.id ?? null, others.filter((id) => id !== teacher.id), `${teacher.full_name} no longer teaches ${className}.`)}
                >
                  Remove
                </Button>
              </li>
            ))}
          </ul>
        )}
        <form
          className="cluster"
          onSubmit={(event) => {
            event.preventDefault();
            if (!adding) return;
            save(mainTeacher?.id ?? null, [...others, adding], `${nameOf(adding)} now teaches ${className} too.`);
            setAdding(NONE);
          }}
        >
          <SelectField
            label="Add a teacher"
            value={adding}
            disabled={set.isPending || addable.length === 0}
            onChange={(event) => setAdding(event.currentTarget.value)}
            options={[{ value: NONE, label: addable.length === 0 ? "Everyone on the staff teaches it" : "Choose a member of staff" }, ...addable]}
          />
          <Button type="submit" variant="secondary" disabled={!adding || set.isPending}>
            Add teacher
          </Button>
        </form>
      </div>
      {set.isError ? (
        <Status tone="error" title="The teachers were not changed">
          {errorMessage(set.error)}
        </Status>
      ) : null}
      {staff.isError ? <Status tone="error">{errorMessage(staff.error)}</Status> : null}
    </div>
  );
}
