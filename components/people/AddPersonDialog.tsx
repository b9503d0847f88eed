"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { SelectField, TextField } from "@/components/ui/Field";
import { FormDialog } from "@/components/ui/FormDialog";
import { Status } from "@/components/ui/Status";
import { useOnOpen } from "@/components/ui/use-on-open";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import type { Role } from "@/lib/rules/roles";
import { roleOptions } from "./person-labels";

interface AddedPerson {
  id: string;
  full_name: string;
}

/** Adds a person to the school; a student may join a class at once. They get a password afterwards. */
export function AddPersonDialog({ open, onClose, onAdded }: { open: boolean; onClose: () => void; onAdded: (person: AddedPerson) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const classes = useQuery({ ...trpc.classes.list.queryOptions(), enabled: open });
  const [fullName, setFullName] = useState("");
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("student");
  const [yearGroup, setYearGroup] = useState("");
  const [classId, setClassId] = useState("");
  const [errors, setErrors] = useState<{ name?: string; email?: string }>({});
  const add = useMutation(
    trpc.people.add.mutationOptions({
      onSuccess: (person) => {
        onAdded(person);
        return queryClient.invalidateQueries({ queryKey: trpc.people.list.queryKey() });
      },
    }),
  );

  useOnOpen(open, () => {
    setFullName("");
    setEmail("");
    setRole("student");
    setYearGroup("");
    setClassId("");
    setErrors({});
    add.reset();
  });

  function submit() {
    const found: typeof errors = {};
    if (!fullName.trim()) found.name = "Enter the person’s full name.";
    if (!/^[^@\s]+@[^@\s]+$/.test(email.trim())) found.email = "Enter an email address, for example name@school.org.";
    setErrors(found);
    if (found.name || found.email) return;
    add.mutate({
      full_name: fullName.trim(),
      email: email.trim(),
      role,
      year_group: yearGroup.trim() || undefined,
      class_ids: role === "student" && classId ? [classId] : undefined,
    });
  }

  const isStudent = role === "student";
  return (
    <FormDialog
      open={open}
      title="Add person"
      description="They can sign in once they have a password: open them after adding to create a temporary one."
      submitLabel="Add person"
      busyLabel="Adding…"
      busy={add.isPending}
      onSubmit={submit}
      onClose={onClose}
    >
      <TextField label="Full name" value={fullName} onChange={(event) => setFullName(event.currentTarget.value)} maxLength={200} error={errors.name} autoComplete="off" />
      <TextField label="Email" type="email" value={email} onChange={(event) => setEmail(event.currentTarget.value)} maxLength={320} error={errors.email} autoComplete="off" />
      <SelectField label="Role" value={role} onChange={(event) => setRole(event.currentTarget.value as Role)} options={roleOptions} />
      {isStudent ? (
        <>
          <TextField label="Year group" hint="Optional, as your school names it, for example “Year 9”." value={yearGroup} onChange={(event) => setYearGroup(event.currentTarget.value)} maxLength={40} />
          <SelectField
            label="Class"
            hint="Optional: a class to join now. More can be added on each class’s page."
            value={classId}
            onChange={(event) => setClassId(event.currentTarget.value)}
            options={[{ value: "", label: "No class yet" }, ...(classes.data?.classes ?? []).map((row) => ({ value: row.id, label: row.name }))]}
          />
        </>
      ) : null}
      {add.isError ? <Status tone="error" title="The person was not added">{errorMessage(add.error)}</Status> : null}
    </FormDialog>
  );
}
