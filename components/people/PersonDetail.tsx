"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { type FormEvent, useState } from "react";
import { OneTimeSecret } from "@/components/settings/OneTimeSecret";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";
import { EmptyState } from "@/components/ui/EmptyState";
import { SelectField, TextField } from "@/components/ui/Field";
import { UsersIcon } from "@/components/ui/icons";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Loading } from "@/components/ui/Loading";
import { Notice } from "@/components/ui/Notice";
import { Status } from "@/components/ui/Status";
import { useTRPC } from "@/components/trpc/client";
import { errorCode, errorMessage } from "@/lib/trpc/errors";
import type { Role } from "@/lib/rules/roles";
import { PersonStatus, roleLabels, roleOptions } from "./person-labels";

interface Person {
  id: string;
  full_name: string;
  display_name: string;
  email: string;
  username: string;
  roles: Role[];
  year_group: string | null;
  classes: string[];
  active: boolean;
  has_password: boolean;
  must_change_password: boolean;
}

/** One person of the school: their details, role, whether they may sign in, and their password. */
export function PersonDetail({ userId, isSelf }: { userId: string; isSelf: boolean }) {
  const trpc = useTRPC();
  const person = useQuery(trpc.people.get.queryOptions({ user_id: userId }));

  if (person.isPending) return <Loading>Loading the person…</Loading>;
  if (!person.data) {
    return (
      <div className="page">
        <Link href="/people" className="back-link">← All people</Link>
        {errorCode(person.error) === "NOT_FOUND" ? (
          <EmptyState icon={<UsersIcon size={28} />} title="Person not found">
            <p>They may belong to another school, or the link is wrong. Choose someone from the list.</p>
          </EmptyState>
        ) : (
          <LoadFailed what="The person" error={person.error} onRetry={() => person.refetch()} />
        )}
      </div>
    );
  }
  return <PersonPage key={person.data.id} person={person.data} isSelf={isSelf} />;
}

function PersonPage({ person, isSelf }: { person: Person; isSelf: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [notice, setNotice] = useState<string | null>(null);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.people.get.queryKey({ user_id: person.id }) }),
      queryClient.invalidateQueries({ queryKey: trpc.people.list.queryKey() }),
    ]);

  return (
    <div className="page">
      <Link href="/people" className="back-link">← All people</Link>
      <header className="page__header class-header">
        <div>
          <h1>{person.full_name}</h1>
          <p className="page__lede">
            {[person.roles.map((role) => roleLabels[role]).join(", ") || "No role", person.year_group, person.classes.join(", ") || null]
              .filter(Boolean)
              .join(" · ")}
          </p>
        </div>
        <PersonStatus person={person} />
      </header>
      {notice ? <Notice onDismiss={() => setNotice(null)}>{notice}</Notice> : null}
      <div className="people__cards">
        <DetailsCard person={person} onSaved={(text) => { setNotice(text); return refresh(); }} />
        <RoleCard person={person} isSelf={isSelf} onSaved={(text) => { setNotice(text); return refresh(); }} />
        <PasswordCard person={person} onReset={refresh} />
        <AccessCard person={person} isSelf={isSelf} onSaved={(text) => { setNotice(text); return refresh(); }} />
      </div>
    </div>
  );
}

function DetailsCard({ person, onSaved }: { person: Person; onSaved: (notice: string) => Promise<unknown> }) {
  const trpc = useTRPC();
  const [fullName, setFullName] = useState(person.full_name);
  const [displayName, setDisplayName] = useState(person.display_name);
  const [email, setEmail] = useState(person.email);
  const [yearGroup, setYearGroup] = useState(person.year_group ?? "");
  const [errors, setErrors] = useState<{ name?: string; display?: string; email?: string }>({});
  const edit = useMutation(trpc.people.edit.mutationOptions({ onSuccess: () => onSaved("Details saved.") }));

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const found: typeof errors = {};
    if (!fullName.trim()) found.name = "Enter the full name.";
    if (!displayName.trim()) found.display = "Enter the name Markbook greets them by.";
    if (!/^[^@\s]+@[^@\s]+$/.test(email.trim())) found.email = "Enter an email address, for example name@school.org.";
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    edit.mutate({ user_id: person.id, full_name: fullName.trim(), display_name: displayName.trim(), email: email.trim(), year_group: yearGroup.trim() });
  }

  return (
    <Card id="details" title="Details" description={`Username: ${person.username}`}>
      <form className="form-stack" onSubmit={submit} noValidate>
        <TextField label="Full name" value={fullName} onChange={(event) => setFullName(event.currentTarget.value)} maxLength={200} error={errors.name} />
        <TextField label="Display name" hint="What Markbook calls them." value={displayName} onChange={(event) => setDisplayName(event.currentTarget.value)} maxLength={200} error={errors.display} />
        <TextField label="Email" type="email" hint="They sign in with it." value={email} onChange={(event) => setEmail(event.currentTarget.value)} maxLength={320} error={errors.email} />
        <TextField label="Year group" hint="Optional, for example “Year 9”." value={yearGroup} onChange={(event) => setYearGroup(event.currentTarget.value)} maxLength={40} />
        {edit.isError ? <Status tone="error" title="The details were not saved">{errorMessage(edit.error)}</Status> : null}
        <div>
          <Button type="submit" loading={edit.isPending} loadingLabel="Saving…">
            Save details
          </Button>
        </div>
      </form>
    </Card>
  );
}

function RoleCard({ person, isSelf, onSaved }: { person: Person; isSelf: boolean; onSaved: (notice: string) => Promise<unknown> }) {
  const trpc = useTRPC();
  const current = person.roles[0] ?? "student";
  const [role, setRole] = useState<Role>(current);
  const change = useMutation(trpc.people.changeRole.mutationOptions({ onSuccess: (saved) => onSaved(`${saved.full_name} is now ${roleLabels[role].toLowerCase()}.`) }));
  const selfAdmin = isSelf && person.roles.includes("school_admin");

  return (
    <Card id="role" title="Role" description="A person has one role in the school. It decides what they may see and change.">
      <form
        className="form-stack"
        onSubmit={(event) => {
          event.preventDefault();
          change.mutate({ user_id: person.id, role });
        }}
      >
        <SelectField
          label="Role"
          value={role}
          onChange={(event) => setRole(event.currentTarget.value as Role)}
          options={roleOptions}
          disabled={selfAdmin}
          hint={selfAdmin ? "You cannot remove your own admin role: another admin can." : undefined}
        />
        {change.isError ? <Status tone="error" title="The role was not changed">{errorMessage(change.error)}</Status> : null}
        <div>
          <Button type="submit" variant="secondary" disabled={selfAdmin || role === current} loading={change.isPending} loadingLabel="Changing…">
            Change role
          </Button>
        </div>
      </form>
    </Card>
  );
}

function PasswordCard({ person, onReset }: { person: Person; onReset: () => Promise<unknown> }) {
  const trpc = useTRPC();
  const [temporary, setTemporary] = useState<string | null>(null);
  const [confirming, setConfirming] = useState(false);
  const reset = useMutation(
    trpc.people.resetPassword.mutationOptions({
      onSuccess: (result) => {
        setConfirming(false);
        setTemporary(result.temporary_password);
        return onReset();
      },
    }),
  );
  const hasPassword = person.has_password;

  return (
    <Card
      id="password"
      title="Password"
      description={
        hasPassword
          ? "Forgot their password? Give them a temporary one: they choose their own the next time they sign in."
          : "They have no password yet, so they cannot sign in. Give them a temporary one."
      }
    >
      {temporary ? (
        <OneTimeSecret
          id="temporary-password-title"
          title="Temporary password: shown only now"
          label="Temporary password"
          value={temporary}
          hideLabel="Done, hide it"
          onHide={() => setTemporary(null)}
        >
          Give it to {person.full_name} in person or by phone, with their email ({person.email}). They sign in with it and then choose their own
          password. If it is lost, reset the password again.
        </OneTimeSecret>
      ) : (
        <div className="stack">
          {reset.isError ? <Status tone="error">{errorMessage(reset.error)}</Status> : null}
          <div>
            <Button
              variant="secondary"
              onClick={() => (hasPassword ? setConfirming(true) : reset.mutate({ user_id: person.id }))}
              loading={reset.isPending && !confirming}
              loadingLabel="Creating…"
            >
              {hasPassword ? "Reset password" : "Create a temporary password"}
            </Button>
          </div>
        </div>
      )}
      <ConfirmDialog
        open={confirming}
        title={`Reset ${person.full_name}’s password?`}
        confirmLabel="Reset password"
        busyLabel="Resetting…"
        busy={reset.isPending}
        onConfirm={() => reset.mutate({ user_id: person.id })}
        onCancel={() => setConfirming(false)}
      >
        <p>Their current password stops working and they are signed out everywhere. You will see a temporary password once, to give to them.</p>
        {reset.isError ? <Status tone="error">{errorMessage(reset.error)}</Status> : null}
      </ConfirmDialog>
    </Card>
  );
}

function AccessCard({ person, isSelf, onSaved }: { person: Person; isSelf: boolean; onSaved: (notice: string) => Promise<unknown> }) {
  const trpc = useTRPC();
  const [confirming, setConfirming] = useState(false);
  const setActive = useMutation(
    trpc.people.setActive.mutationOptions({
      onSuccess: (saved) => {
        setConfirming(false);
        return onSaved(saved.active ? `${saved.full_name} can sign in again.` : `${saved.full_name} is deactivated and signed out everywhere.`);
      },
    }),
  );

  if (!person.active) {
    return (
      <Card id="access" title="Access" description="Deactivated: they cannot sign in, and their tokens and keys do not work. Their marks and work are kept.">
        <div className="stack">
          {setActive.isError ? <Status tone="error">{errorMessage(setActive.error)}</Status> : null}
          <div>
            <Button variant="secondary" onClick={() => setActive.mutate({ user_id: person.id, active: true })} loading={setActive.isPending} loadingLabel="Reactivating…">
              Reactivate
            </Button>
          </div>
        </div>
      </Card>
    );
  }
  return (
    <Card id="access" title="Access" description={isSelf ? "You cannot deactivate yourself: another admin can." : "Someone who leaves the school is deactivated, never deleted: their marks and work stay."}>
      <div>
        <Button variant="danger-quiet" onClick={() => setConfirming(true)} disabled={isSelf}>
          Deactivate
        </Button>
      </div>
      <ConfirmDialog
        open={confirming}
        title={`Deactivate ${person.full_name}?`}
        confirmLabel="Deactivate"
        busyLabel="Deactivating…"
        busy={setActive.isPending}
        onConfirm={() => setActive.mutate({ user_id: person.id, active: false })}
        onCancel={() => setConfirming(false)}
      >
        <p>
          They are signed out at once and cannot sign in again; their access tokens and dictation keys stop working. Their marks, templates and
          classes are kept, and you can reactivate them later.
        </p>
        {setActive.isError ? <Status tone="error">{errorMessage(setActive.error)}</Status> : null}
      </ConfirmDialog>
    </Card>
  );
}
