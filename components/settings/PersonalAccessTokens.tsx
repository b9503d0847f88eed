"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";
import { SelectField, TextField } from "@/components/ui/Field";
import { Spinner } from "@/components/ui/Spinner";
import { Status } from "@/components/ui/Status";
import { Table } from "@/components/ui/Table";
import { useTRPC } from "@/lib/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import { OneTimeSecret } from "./OneTimeSecret";
import { formatDate, formatDateTime, tokenStatus } from "./token-status";

const lifetimes = [
  { value: "7", label: "7 days" },
  { value: "30", label: "30 days" },
  { value: "90", label: "90 days" },
  { value: "365", label: "1 year" },
];

interface CreatedToken {
  id: string;
  name: string;
  expires_at: Date;
  token: string;
}

interface TokenRow {
  id: string;
  name: string;
  created_at: Date;
  expires_at: Date;
  revoked_at: Date | null;
}

/** Settings → personal access tokens: create (shown once), list, revoke. */
export function PersonalAccessTokens({ origin }: { origin: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions());
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() });

  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [revoking, setRevoking] = useState<TokenRow | null>(null);
  const [revokedName, setRevokedName] = useState<string | null>(null);
  const nameInput = useRef<HTMLInputElement>(null);

  const create = useMutation(
    trpc.tokens.create.mutationOptions({
      onSuccess: (token) => {
        setCreated(token);
        setRevokedName(null);
        return invalidate();
      },
    }),
  );
  const revoke = useMutation(
    trpc.tokens.revoke.mutationOptions({
      onSuccess: () => {
        setRevokedName(revoking?.name ?? null);
        setRevoking(null);
        return invalidate();
      },
    }),
  );

  const [name, setName] = useState("");
  const [ttlDays, setTtlDays] = useState("30");
  const [nameError, setNameError] = useState<string | null>(null);

  function onCreate(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!name.trim()) {
      setNameError("Give the token a name, so that you can recognise it later.");
      nameInput.current?.focus();
      return;
    }
    setNameError(null);
    create.mutate(
      { name: name.trim(), ttlDays: Number(ttlDays) },
      { onSuccess: () => setName("") },
    );
  }

  return (
    <Card
      id="tokens"
      title="Personal access tokens"
      description="A token lets a script or another tool call Markbook's API as you, with your permissions. Create one per tool, and revoke it when the tool no longer needs it."
    >
      <div className="stack">
        <form className="form-row" onSubmit={onCreate} noValidate aria-label="Create a token">
          <TextField
            ref={nameInput}
            label="Token name"
            hint="For example the tool or computer that will use it."
            name="name"
            maxLength={100}
            autoComplete="off"
            value={name}
            onChange={(event) => setName(event.target.value)}
            error={nameError}
          />
          <SelectField
            label="Lifetime"
            name="ttlDays"
            fieldClassName="field--narrow"
            options={lifetimes}
            value={ttlDays}
            onChange={(event) => setTtlDays(event.target.value)}
          />
          <div className="form-row__action">
            <Button type="submit" loading={create.isPending} loadingLabel="Creating…">
              Create token
            </Button>
          </div>
        </form>

        {create.isError ? <Status tone="error">{errorMessage(create.error)}</Status> : null}

        {created ? (
          <OneTimeSecret
            id="token-reveal-heading"
            title="Copy your new token now"
            label={`Token “${created.name}”`}
            value={created.token}
            hideLabel="I have copied it, hide the token"
            onHide={() => setCreated(null)}
          >
            This is the only time “{created.name}” is shown. Markbook keeps no copy: if you lose it, revoke it and
            create another. It expires on {formatDateTime(created.expires_at)}.
          </OneTimeSecret>
        ) : null}

        {revokedName ? (
          <Status tone="success">Token “{revokedName}” was revoked. Tools that use it are refused from now on.</Status>
        ) : null}

        <TokenList
          state={tokens}
          onRevoke={(token) => {
            revoke.reset();
            setRevoking(token);
          }}
        />

        <div className="stack token-usage">
          <h3>Using a token</h3>
          <p className="muted">
            Send it in the <code>Authorization</code> header. For example, this returns your profile:
          </p>
          <pre className="code-block">
            <code>{`curl -H "Authorization: Bearer <token>" ${origin}/me/bootstrap`}</code>
          </pre>
        </div>
      </div>

      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this token?"
        confirmLabel="Revoke token"
        busyLabel="Revoking…"
        busy={revoke.isPending}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        onCancel={() => setRevoking(null)}
      >
        <p>
          Tools that use “{revoking?.name}” will be refused straight away. This cannot be undone.
        </p>
        {revoke.isError ? <Status tone="error">{errorMessage(revoke.error)}</Status> : null}
      </ConfirmDialog>
    </Card>
  );
}

interface TokenListProps {
  state: { data?: TokenRow[]; isPending: boolean; isError: boolean; refetch: () => unknown; isFetching: boolean };
  onRevoke: (token: TokenRow) => void;
}

function TokenList({ state, onRevoke }: TokenListProps) {
  if (state.isPending) {
    return (
      <p className="cluster muted" role="status">
        <Spinner /> Loading your tokens…
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
        Your tokens could not be loaded.
      </Status>
    );
  }
  if (state.data.length === 0) {
    return <p className="muted token-empty">You have no tokens yet. Tokens you create are listed here.</p>;
  }
  const now = new Date();
  return (
    <Table caption="Your personal access tokens">
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Created</th>
          <th scope="col">Expires</th>
          <th scope="col">Status</th>
          <th scope="col" className="table__actions">
            <span className="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {state.data.map((token) => {
          const status = tokenStatus(token, now);
          return (
            <tr key={token.id}>
              <th scope="row">{token.name}</th>
              <td className="table__muted">
                <time dateTime={token.created_at.toISOString()} title={formatDateTime(token.created_at)}>
                  {formatDate(token.created_at)}
                </time>
              </td>
              <td className="table__muted">
                <time dateTime={token.expires_at.toISOString()} title={formatDateTime(token.expires_at)}>
                  {formatDate(token.expires_at)}
                </time>
              </td>
              <td>
                {status === "active" ? (
                  <Badge tone="success">Active</Badge>
                ) : status === "revoked" ? (
                  <Badge tone="danger">Revoked</Badge>
                ) : (
                  <Badge tone="neutral">Expired</Badge>
                )}
              </td>
              <td className="table__actions">
                {status === "active" ? (
                  <Button
                    variant="danger-quiet"
                    size="small"
                    onClick={() => onRevoke(token)}
                    aria-label={`Revoke ${token.name}`}
                  >
                    Revoke
                  </Button>
                ) : null}
              </td>
            </tr>
          );
        })}
      </tbody>
    </Table>
  );
}
