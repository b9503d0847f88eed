"use client";

import { useRef, useState, type FormEvent, type ReactNode } from "react";
import { Button } from "@/components/ui/Button";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";
import { TextField } from "@/components/ui/Field";
import { Status } from "@/components/ui/Status";
import { ActionsHeader, Table } from "@/components/ui/Table";
import { Loading } from "@/components/ui/Loading";
import { useDateFormat } from "@/components/ui/dates";

/**
 * The parts of a "credentials you create, see once and revoke" card (personal access tokens, speech API
 * keys): the naming form, the list with its loading, failed and empty states, the revoke confirmation
 * and the example request. Each card says only what is its own (the noun, the columns, the texts).
 */

/** "key" or "token": the word every sentence of the card uses. */
export type CredentialNoun = "key" | "token";

/** Names a new credential; a name is required so that the owner can recognise it later. */
export function CreateCredentialForm({
  noun,
  ariaLabel,
  label,
  hint,
  inputName,
  busy,
  onCreate,
  children,
}: {
  noun: CredentialNoun;
  ariaLabel: string;
  label: string;
  hint: string;
  inputName?: string;
  busy: boolean;
  /** Creates it; the name is cleared once the promise resolves. */
  onCreate: (name: string) => Promise<unknown>;
  /** More fields between the name and the button. */
  children?: ReactNode;
}) {
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState<string | null>(null);
  const nameInput = useRef<HTMLInputElement>(null);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!name.trim()) {
      setNameError(`Give the ${noun} a name, so that you can recognise it later.`);
      nameInput.current?.focus();
      return;
    }
    setNameError(null);
    // A failure is shown by the card from the mutation's state.
    onCreate(name.trim()).then(() => setName(""), () => undefined);
  }

  return (
    <form className="form-row" onSubmit={submit} noValidate aria-label={ariaLabel}>
      <TextField
        ref={nameInput}
        label={label}
        hint={hint}
        name={inputName}
        maxLength={100}
        autoComplete="off"
        value={name}
        onChange={(event) => setName(event.target.value)}
        error={nameError}
      />
      {children}
      <div className="form-row__action">
        <Button type="submit" loading={busy} loadingLabel="Creating…">
          Create {noun}
        </Button>
      </div>
    </form>
  );
}

interface ListState<Row> {
  data?: Row[];
  isPending: boolean;
  isError: boolean;
  refetch: () => unknown;
  isFetching: boolean;
}

/** The credentials in a table, or what stands for it while they load, when they fail and when there are none. */
export function CredentialTable<Row extends { id: string }>({
  state,
  loading,
  failed,
  empty,
  caption,
  columns,
  row,
}: {
  state: ListState<Row>;
  loading: string;
  failed: ReactNode;
  empty: string;
  caption: string;
  /** The column headings before the (hidden) actions column. */
  columns: string[];
  /** The cells of one row: its header cell, the data cells and the actions cell. */
  row: (item: Row) => ReactNode;
}) {
  if (state.isPending) {
    return <Loading>{loading}</Loading>;
  }
  if (state.isError || !state.data) {
    return (
      <Status
        tone="error"
        action={
          <Button variant="secondary" size="small" onClick={() => state.refetch()} loading={state.isFetching}>
            Try again
          </Button>
        }
      >
        {failed}
      </Status>
    );
  }
  if (state.data.length === 0) return <p className="muted token-empty">{empty}</p>;
  return (
    <Table caption={caption}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th scope="col" key={column}>
              {column}
            </th>
          ))}
          <ActionsHeader />
        </tr>
      </thead>
      <tbody>
        {state.data.map((item) => (
          <tr key={item.id}>{row(item)}</tr>
        ))}
      </tbody>
    </Table>
  );
}

/** A date cell: the day, with the full date and time on hover. */
export function DateCell({ date }: { date: Date }) {
  const formatDate = useDateFormat();
  return (
    <td className="table__muted">
      <time dateTime={date.toISOString()} title={formatDate(date, "dateTime")}>
        {formatDate(date, "date")}
      </time>
    </td>
  );
}

/** The actions cell of a row: Revoke, while the credential still works. */
export function RevokeCell({ name, active, onRevoke }: { name: string; active: boolean; onRevoke: () => void }) {
  return (
    <td className="table__actions">
      {active ? (
        <Button variant="danger-quiet" size="small" onClick={onRevoke} aria-label={`Revoke ${name}`}>
          Revoke
        </Button>
      ) : null}
    </td>
  );
}

/** Asks before revoking: whoever uses it (`users`: "Tools", "Programs") is refused straight away. */
export function RevokeCredentialDialog({
  noun,
  users,
  revoking,
  busy,
  error,
  onConfirm,
  onCancel,
}: {
  noun: CredentialNoun;
  users: string;
  revoking: { name: string } | null;
  busy: boolean;
  /** Why the last attempt failed, if it did. */
  error: string | null;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  return (
    <ConfirmDialog
      open={revoking !== null}
      title={`Revoke this ${noun}?`}
      confirmLabel={`Revoke ${noun}`}
      busyLabel="Revoking…"
      busy={busy}
      onConfirm={onConfirm}
      onCancel={onCancel}
    >
      <p>
        {users} that use “{revoking?.name}” will be refused straight away. This cannot be undone.
      </p>
      {error ? <Status tone="error">{error}</Status> : null}
    </ConfirmDialog>
  );
}

/** How to send the credential, with one example request. */
export function CredentialUsage({ noun, purpose, example }: { noun: CredentialNoun; purpose: string; example: string }) {
  return (
    <div className="stack token-usage">
      <h3>Using a {noun}</h3>
      <p className="muted">
        Send it in the <code>Authorization</code> header. For example, {purpose}:
      </p>
      <pre className="code-block">
        <code>{example}</code>
      </pre>
    </div>
  );
}
