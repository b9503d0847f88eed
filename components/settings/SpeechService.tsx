"use client";

import { useQuery } from "@tanstack/react-query";
import { Badge } from "@/components/ui/Badge";
import { Card } from "@/components/ui/Card";
import { Status } from "@/components/ui/Status";
import { Table } from "@/components/ui/Table";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";

const FROM = { disk: "Installed", download: "Downloads on first use" } as const;

/**
 * Settings → the speech service's state, for a school admin: whether dictation works, why not, and
 * which of the five models can be loaded (the same assessment as GET /v1/health and /v1/health/ready).
 * The reasons name the server's folders and settings: whoever runs the server changes them.
 */
export function SpeechService() {
  const trpc = useTRPC();
  const state = useQuery({ ...trpc.speech.serviceStatus.queryOptions(), staleTime: 30_000 });

  return (
    <Card
      id="speech-service"
      title="Speech service"
      description="Dictated comments and the speech API keys below use the speech-to-text service of this server. Its state, as the server checks it now:"
    >
      {state.isPending ? <p className="muted">Checking the speech service…</p> : null}
      {state.isError ? <Status tone="error">The speech service's state could not be read. {errorMessage(state.error)}</Status> : null}
      {state.data ? (
        <div className="stack">
          {state.data.dictation.available ? (
            <Status tone="success" title="Dictation works">
              Teachers can dictate comments on the marking screen (model “{state.data.default_model}”).
            </Status>
          ) : (
            <Status tone="warning" title="Dictation is off on this server" role="status">
              <p>{state.data.dictation.reason} Teachers see the dictation button switched off, with this reason.</p>
              {state.data.reasons.length > 0 ? (
                <p>
                  For whoever runs the server: {state.data.reasons.join("; ")}. The README's “Speech models from a local folder” says how
                  to install one.
                </p>
              ) : null}
            </Status>
          )}
          <Table caption="Speech models">
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Files</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {state.data.models.map((model) => (
                <tr key={model.id}>
                  <th scope="row">
                    {model.id}
                    {model.id === state.data.default_model ? <span className="muted"> (default)</span> : null}
                  </th>
                  <td className="table__muted">
                    <code>{model.source}</code>
                  </td>
                  <td>
                    {model.status === "healthy" ? (
                      <Badge tone="success">{model.from ? FROM[model.from] : "Available"}</Badge>
                    ) : (
                      <>
                        <Badge tone="danger">Cannot be loaded</Badge> <span className="table__muted">{model.reason}</span>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        </div>
      ) : null}
    </Card>
  );
}
