"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Badge } from "@/components/ui/Badge";
import { Card } from "@/components/ui/Card";
import { SelectField } from "@/components/ui/Field";
import { Status } from "@/components/ui/Status";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import { CreateCredentialForm, CredentialTable, CredentialUsage, DateCell, RevokeCell, RevokeCredentialDialog } from "./Credentials";
import { OneTimeSecret } from "./OneTimeSecret";
import { useDateFormat } from "@/components/ui/dates";
import { tokenStatus } from "./token-status";

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
  const formatDate = useDateFormat();
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const tokens = useQuery(trpc.tokens.list.queryOptions());
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.tokens.list.queryKey() });

  const [created, setCreated] = useState<CreatedToken | null>(null);
  const [revoking, setRevoking] = useState<TokenRow | null>(null);
  const [revokedName, setRevokedName] = useState<string | null>(null);
  const [ttlDays, setTtlDays] = useState("30");

  const create = useMutation(
    trpc.tokens.create.mutationOptions({
      onSuccess: (token) => {
        setCreated(token);
        setRevokedName(null);
        // Listed at once, the refetch confirming it: a list read a moment before the token existed never hides it.
        queryClient.setQueryData(trpc.tokens.list.queryKey(), (rows) =>
          rows && !rows.some((row) => row.id === token.id)
            ? [{ id: token.id, name: token.name, created_at: new Date(), expires_at: token.expires_at, revoked_at: null }, ...rows]
            : rows,
        );
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

  const now = new Date();
  return (
    <Card
      id="tokens"
      title="Personal access tokens"
      description="A token lets a script or another tool call Markbook's API as you, with your permissions. Create one per tool, and revoke it when the tool no longer needs it."
    >
      <div className="stack">
        <CreateCredentialForm
          noun="token"
          ariaLabel="Create a token"
          label="Token name"
          hint="For example the tool or computer that will use it."
          inputName="name"
          busy={create.isPending}
          onCreate={(name) => create.mutateAsync({ name, ttlDays: Number(ttlDays) })}
        >
          <SelectField
            label="Lifetime"
            name="ttlDays"
            fieldClassName="field--narrow"
            options={lifetimes}
            value={ttlDays}
            onChange={(event) => setTtlDays(event.target.value)}
          />
        </CreateCredentialForm>

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
            create another. It expires on {formatDate(created.expires_at, "dateTime")}.
          </OneTimeSecret>
        ) : null}

        {revokedName ? (
          <Status tone="success">Token “{revokedName}” was revoked. Tools that use it are refused from now on.</Status>
        ) : null}

        <CredentialTable
          state={tokens}
          loading="Loading your tokens…"
          failed="Your tokens could not be loaded."
          empty="You have no tokens yet. Tokens you create are listed here."
          caption="Your personal access tokens"
          columns={["Name", "Created", "Expires", "Status"]}
          row={(token) => {
            const status = tokenStatus(token, now);
            return (
              <>
                <th scope="row">{token.name}</th>
                <DateCell date={token.created_at} />
                <DateCell date={token.expires_at} />
                <td>
                  {status === "active" ? (
                    <Badge tone="success">Active</Badge>
                  ) : status === "revoked" ? (
                    <Badge tone="danger">Revoked</Badge>
                  ) : (
                    <Badge tone="neutral">Expired</Badge>
                  )}
                </td>
                <RevokeCell
                  name={token.name}
                  active={status === "active"}
                  onRevoke={() => {
                    revoke.reset();
                    setRevoking(token);
                  }}
                />
              </>
            );
          }}
        />

        <CredentialUsage noun="token" purpose="this returns your profile" example={`curl -H "Authorization: Bearer <token>" ${origin}/me/bootstrap`} />
      </div>

      <RevokeCredentialDialog
        noun="token"
        users="Tools"
        revoking={revoking}
        busy={revoke.isPending}
        error={revoke.isError ? errorMessage(revoke.error) : null}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        onCancel={() => setRevoking(null)}
      />
    </Card>
  );
}
