"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { errorCode, errorMessage } from "@/lib/trpc/errors";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";
import { TextField } from "@/components/ui/Field";
import { Spinner } from "@/components/ui/Spinner";
import { Status } from "@/components/ui/Status";
import { Table } from "@/components/ui/Table";
import { useTRPC } from "@/lib/trpc/client";
import { OneTimeSecret } from "./OneTimeSecret";
import { formatDate, formatDateTime } from "./token-status";

interface CreatedKey {
  id: string;
  name: string;
  key: string;
}

interface KeyRow {
  id: string;
  name: string;
  prefix: string;
  created_by_name: string | null;
  created_at: Date;
  last_used_at: Date | null;
  revoked_at: Date | null;
}

/**
 * Settings → speech API keys of the admin's school (`instituteId`): create (shown once), list, revoke.
 * Every school admin of the school sees and can revoke every key of it, whoever made it.
 */
export function ApiKeys({ origin, instituteId }: { origin: string; instituteId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = useQuery(trpc.speech.apiKeys.list.queryOptions({ institute_id: instituteId }));
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.speech.apiKeys.list.queryKey() });

  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<KeyRow | null>(null);
  const [revokedName, setRevokedName] = useState<string | null>(null);
  const [name, setName] = useState("");
  const [nameError, setNameError] = useState<string | null>(null);
  const nameInput = useRef<HTMLInputElement>(null);

  const create = useMutation(
    trpc.speech.apiKeys.create.mutationOptions({
      onSuccess: (key) => {
        setCreated({ id: key.id, name: key.name, key: key.key });
        setRevokedName(null);
        setName("");
        return invalidate();
      },
    }),
  );
  const revoke = useMutation(
    trpc.speech.apiKeys.revoke.mutationOptions({
      onSuccess: () => {
        setRevokedName(revoking?.name ?? null);
        if (created?.id === revoking?.id) setCreated(null);
        setRevoking(null);
        return invalidate();
      },
      onError: (error) => {
        if (errorCode(error) === "NOT_FOUND") void invalidate();
      },
    }),
  );

  function onCreate(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!name.trim()) {
      setNameError("Give the key a name, so that you can recognise it later.");
      nameInput.current?.focus();
      return;
    }
    setNameError(null);
    create.mutate({ name: name.trim(), institute_id: instituteId });
  }

  return (
    <Card
      id="speech-keys"
      title="Speech API keys"
      description="Keys let other programs use the school's speech-to-text service (an OpenAI-compatible API). Create one per program, and revoke it when the program no longer needs it. Every admin of the school sees these keys and can revoke them."
    >
      <div className="stack">
        <form className="form-row" onSubmit={onCreate} noValidate aria-label="Create a speech API key">
          <TextField
            ref={nameInput}
            label="Key name"
            hint="For example the program or server that will use it."
            maxLength={100}
            autoComplete="off"
            value={name}
            onChange={(event) => setName(event.target.value)}
            error={nameError}
          />
          <div className="form-row__action">
            <Button type="submit" loading={create.isPending} loadingLabel="Creating…">
              Create key
            </Button>
          </div>
        </form>

        {create.isError ? <Status tone="error">{errorMessage(create.error)}</Status> : null}

        {created ? (
          <OneTimeSecret
            id="speech-key-reveal-heading"
            title="Copy your new key now"
            label={`Speech API key “${created.name}”`}
            value={created.key}
            hideLabel="I have copied it, hide the key"
            onHide={() => setCreated(null)}
          >
            This is the only time “{created.name}” is shown. Markbook keeps only a fingerprint of it: if you lose it, revoke it and
            create another.
          </OneTimeSecret>
        ) : null}

        {revokedName ? <Status tone="success">Key “{revokedName}” was revoked. Programs that use it are refused from now on.</Status> : null}

        <KeyList
          state={keys}
          onRevoke={(key) => {
            revoke.reset();
            setRevoking(key);
          }}
        />

        <div className="stack token-usage">
          <h3>Using a key</h3>
          <p className="muted">
            Send it in the <code>Authorization</code> header. For example, this transcribes a recording:
          </p>
          <pre className="code-block">
            <code>{`curl -H "Authorization: Bearer <key>" \\
  -F file=@lesson.wav -F model=whisper-1 \\
  ${origin}/v1/audio/transcriptions`}</code>
          </pre>
        </div>
      </div>

      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this key?"
        confirmLabel="Revoke key"
        busyLabel="Revoking…"
        busy={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        onCancel={() => setRevoking(null)}
      >
        <p>Programs that use “{revoking?.name}” will be refused straight away. This cannot be undone.</p>
        {revoke.isError ? <Status tone="error">{revokeErrorMessage(revoke.error)}</Status> : null}
      </ConfirmDialog>
    </Card>
  );
}

/** A key that is gone (its school's keys changed meanwhile) is said so, not as a bare "not found". */
function revokeErrorMessage(error: unknown): string {
  if (errorCode(error) === "NOT_FOUND") return "This key is no longer among your school's keys, so there is nothing to revoke. The list has been refreshed.";
  return errorMessage(error);
}

interface KeyListProps {
  state: { data?: KeyRow[]; isPending: boolean; isError: boolean; error: unknown; refetch: () => unknown; isFetching: boolean };
  onRevoke: (key: KeyRow) => void;
}

function KeyList({ state, onRevoke }: KeyListProps) {
  if (state.isPending) {
    return (
      <p className="cluster muted" role="status">
        <Spinner /> Loading the school's keys…
      </p>
    );
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
        The keys could not be loaded. {errorMessage(state.error)}
      </Status>
    );
  }
  if (state.data.length === 0) {
    return <p className="muted token-empty">No speech API keys yet. Keys you create are listed here.</p>;
  }
  return (
    <Table caption="Speech API keys">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Key starts with</th>
          <th scope="col">Made by</th>
          <th scope="col">Created</th>
          <th scope="col">Last used</th>
          <th scope="col">Status</th>
          <th scope="col" className="table__actions">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {state.data.map((key) => (
          <tr key={key.id}>
            <th scope="row">{key.name}</th>
            <td>
              <code>{key.prefix}…</code>
            </td>
            <td className="table__muted">{key.created_by_name ?? "—"}</td>
            <td className="table__muted">
              <time dateTime={key.created_at.toISOString()} title={formatDateTime(key.created_at)}>
                {formatDate(key.created_at)}
              </time>
            </td>
            <td className="table__muted">
              {key.last_used_at ? (
                <time dateTime={key.last_used_at.toISOString()} title={formatDateTime(key.last_used_at)}>
                  {formatDate(key.last_used_at)}
                </time>
              ) : (
                "Never"
              )}
            </td>
            <td>{key.revoked_at ? <Badge tone="danger">Revoked</Badge> : <Badge tone="success">Active</Badge>}</td>
            <td className="table__actions">
              {key.revoked_at ? null : (
                <Button variant="danger-quiet" size="small" onClick={() => onRevoke(key)} aria-label={`Revoke ${key.name}`}>
                  Revoke
                </Button>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </Table>
  );
}
