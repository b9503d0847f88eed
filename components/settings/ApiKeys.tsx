"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { Badge } from "@/components/ui/Badge";
import { Card } from "@/components/ui/Card";
import { Status } from "@/components/ui/Status";
import { useTRPC } from "@/components/trpc/client";
import { errorCode, errorMessage } from "@/lib/trpc/errors";
import { CreateCredentialForm, CredentialTable, CredentialUsage, DateCell, RevokeCell, RevokeCredentialDialog } from "./Credentials";
import { OneTimeSecret } from "./OneTimeSecret";

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

  const create = useMutation(
    trpc.speech.apiKeys.create.mutationOptions({
      onSuccess: (key) => {
        setCreated({ id: key.id, name: key.name, key: key.key });
        setRevokedName(null);
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

  return (
    <Card
      id="speech-keys"
      title="Speech API keys"
      description="Keys let other programs use the school's speech-to-text service (an OpenAI-compatible API). Create one per program, and revoke it when the program no longer needs it. Every admin of the school sees these keys and can revoke them."
    >
      <div className="stack">
        <CreateCredentialForm
          noun="key"
          ariaLabel="Create a speech API key"
          label="Key name"
          hint="For example the program or server that will use it."
          busy={create.isPending}
          onCreate={(name) => create.mutateAsync({ name, institute_id: instituteId })}
        />

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

        <CredentialTable
          state={keys}
          loading="Loading the school's keys…"
          failed={<>The keys could not be loaded. {errorMessage(keys.error)}</>}
          empty="No speech API keys yet. Keys you create are listed here."
          caption="Speech API keys"
          columns={["Name", "Key starts with", "Made by", "Created", "Last used", "Status"]}
          row={(key) => (
            <>
              <th scope="row">{key.name}</th>
              <td>
                <code>{key.prefix}…</code>
              </td>
              <td className="table__muted">{key.created_by_name ?? "—"}</td>
              <DateCell date={key.created_at} />
              {key.last_used_at ? <DateCell date={key.last_used_at} /> : <td className="table__muted">Never</td>}
              <td>{key.revoked_at ? <Badge tone="danger">Revoked</Badge> : <Badge tone="success">Active</Badge>}</td>
              <RevokeCell
                name={key.name}
                active={!key.revoked_at}
                onRevoke={() => {
                  revoke.reset();
                  setRevoking(key);
                }}
              />
            </>
          )}
        />

        <CredentialUsage
          noun="key"
          purpose="this transcribes a recording"
          example={`curl -H "Authorization: Bearer <key>" \\
  -F file=@lesson.wav -F model=whisper-1 \\
  ${origin}/v1/audio/transcriptions`}
        />
      </div>

      <RevokeCredentialDialog
        noun="key"
        users="Programs"
        revoking={revoking}
        busy={revoke.isPending}
        error={revoke.isError ? revokeErrorMessage(revoke.error) : null}
        onConfirm={() => revoking && revoke.mutate({ id: revoking.id })}
        onCancel={() => setRevoking(null)}
      />
    </Card>
  );
}

/** A key that is gone (its school's keys changed meanwhile) is said so, not as a bare "not found". */
function revokeErrorMessage(error: unknown): string {
  if (errorCode(error) === "NOT_FOUND") return "This key is no longer among your school's keys, so there is nothing to revoke. The list has been refreshed.";
  return errorMessage(error);
}
