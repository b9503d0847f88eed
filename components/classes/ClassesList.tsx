"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage } from "@/lib/trpc/errors";
import { Button } from "@/components/ui/Button";
import { EmptyState } from "@/components/ui/EmptyState";
import { SelectField, TextField } from "@/components/ui/Field";
import { FormDialog } from "@/components/ui/FormDialog";
import { UsersIcon } from "@/components/ui/icons";
import { Status } from "@/components/ui/Status";
import { RowLink, Table } from "@/components/ui/Table";
import { QueryStates } from "@/components/ui/QueryStates";
import { Notice } from "@/components/ui/Notice";
import { useOnOpen } from "@/components/ui/use-on-open";
import { useTRPC } from "@/components/trpc/client";

/** The school's classes with their total; school admins create classes here. */
export function ClassesList({ isSchoolAdmin }: { isSchoolAdmin: boolean }) {
  const trpc = useTRPC();
  const list = useQuery(trpc.classes.list.queryOptions());
  const [creating, setCreating] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  const newButton = isSchoolAdmin ? (
    <Button onClick={() => setCreating(true)}>
      <UsersIcon size={18} />
      New class
    </Button>
  ) : null;

  return (
    <>
      <div className="toolbar">
        <p className="muted" role="status">
          {list.data ? `${list.data.total} ${list.data.total === 1 ? "class" : "classes"} in your school` : null}
        </p>
        {newButton}
      </div>
      {notice ? <Notice onDismiss={() => setNotice(null)}>{notice}</Notice> : null}

      <QueryStates query={list} loading="Loading classes…" what="The classes">
        {(data) =>
          data.classes.length === 0 ? (
            <EmptyState icon={<UsersIcon size={28} />} title="No classes yet">
              <p>
                {isSchoolAdmin
                  ? "A class groups the students who sit an exam together. Create one, then add its students."
                  : "Your school has no classes yet. A school admin creates them."}
              </p>
              {newButton}
            </EmptyState>
          ) : (
            <Table caption={`Classes of your school, ${data.total} in all`}>
              <thead>
                <tr>
                  <th scope="col">Class</th>
                  <th scope="col">Subject</th>
                  <th scope="col">Teachers</th>
                </tr>
              </thead>
              <tbody>
                {data.classes.map((row) => (
                  <tr key={row.id}>
                    <RowLink href={`/classes/${row.id}`}>{row.name}</RowLink>
                    <td>{row.subject ?? <span className="table__muted">—</span>}</td>
                    <td>
                      {row.teacher_name ?? <span className="table__muted">No main teacher</span>}
                      {row.other_teachers.length > 0 ? (
                        <span className="table__muted table__sub">with {row.other_teachers.map((teacher) => teacher.full_name).join(", ")}</span>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )
        }
      </QueryStates>

      {isSchoolAdmin ? (
        <NewClassDialog
          open={creating}
          onClose={() => setCreating(false)}
          onCreated={(name) => {
            setCreating(false);
            setNotice(`Class “${name}” created. Open it to add its students.`);
          }}
        />
      ) : null}
    </>
  );
}

function NewClassDialog({ open, onClose, onCreated }: { open: boolean; onClose: () => void; onCreated: (name: string) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const staff = useQuery({ ...trpc.classes.schoolStaff.queryOptions(), enabled: open });
  const [name, setName] = useState("");
  const [subject, setSubject] = useState("");
  const [teacherId, setTeacherId] = useState("");
  const [nameError, setNameError] = useState<string | null>(null);
  const create = useMutation(
    trpc.classes.create.mutationOptions({
      onSuccess: (created) => {
        onCreated(created.name);
        return queryClient.invalidateQueries({ queryKey: trpc.classes.list.queryKey() });
      },
    }),
  );

  useOnOpen(open, () => {
    setName("");
    setSubject("");
    setTeacherId("");
    setNameError(null);
    create.reset();
  });

  function submit() {
    if (!name.trim()) {
      setNameError("Give the class a name, for example “10C Mathematics”.");
      return;
    }
    setNameError(null);
    create.mutate({ name: name.trim(), subject: subject.trim() || undefined, teacherId: teacherId || undefined });
  }

  return (
    <FormDialog
      open={open}
      title="New class"
      submitLabel="Create class"
      busyLabel="Creating…"
      busy={create.isPending}
      onSubmit={submit}
      onClose={onClose}
    >
      <TextField label="Name" value={name} onChange={(event) => setName(event.currentTarget.value)} maxLength={200} error={nameError} autoComplete="off" />
      <TextField label="Subject" hint="Optional." value={subject} onChange={(event) => setSubject(event.currentTarget.value)} maxLength={200} />
      <SelectField
        label="Teacher"
        hint="Optional: the class's main teacher."
        value={teacherId}
        onChange={(event) => setTeacherId(event.currentTarget.value)}
        options={[{ value: "", label: "No teacher yet" }, ...(staff.data?.staff ?? []).map((person) => ({ value: person.id, label: person.full_name }))]}
      />
      {create.isError ? <Status tone="error" title="The class was not created">{errorMessage(create.error)}</Status> : null}
    </FormDialog>
  );
}
