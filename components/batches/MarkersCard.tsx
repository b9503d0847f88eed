"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { type FormEvent, useState } from "react";
import { Button } from "@/components/ui/Button";
import { SelectField, TextField } from "@/components/ui/Field";
import { Status } from "@/components/ui/Status";
import { ActionsHeader, Table } from "@/components/ui/Table";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";

interface Allocation {
  question_id: string | null;
  question_label: string | null;
  first_script: number | null;
  last_script: number | null;
}

/** "Question 2, scripts 1–10", "Scripts 11 onwards", "Question 3". */
function describeAllocation(allocation: Allocation): string {
  const { first_script: first, last_script: last } = allocation;
  const range =
    first !== null && last !== null ? `scripts ${first}–${last}` : first !== null ? `scripts ${first} onwards` : last !== null ? `scripts up to ${last}` : null;
  const question = allocation.question_label !== null ? `Question ${allocation.question_label}` : null;
  const text = [question, range].filter(Boolean).join(", ");
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const wholeNumber = (text: string) => (text.trim() === "" ? null : Number(text));

/**
 * Shared marking on the batch page: the owner invites colleagues of the school, allocates each a
 * question or a range of scripts, and sees how far each has got; everyone else sees who marks what.
 */
export function MarkersCard({
  batchId,
  isOwner,
  archived,
  questions,
}: {
  batchId: string;
  isOwner: boolean;
  archived: boolean;
  questions: ReadonlyArray<{ id: string; label: string }>;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const markers = useQuery({ ...trpc.exam.markers.list.queryOptions({ batch_id: batchId }), refetchInterval: 10_000 });
  const progress = useQuery({ ...trpc.exam.markers.progress.queryOptions({ batch_id: batchId }), refetchInterval: 10_000 });
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: trpc.exam.markers.list.queryKey({ batch_id: batchId }) }),
      queryClient.invalidateQueries({ queryKey: trpc.exam.markers.progress.queryKey({ batch_id: batchId }) }),
    ]);
  const invite = useMutation(trpc.exam.markers.invite.mutationOptions({ onSuccess: refresh }));
  const remove = useMutation(trpc.exam.markers.remove.mutationOptions({ onSuccess: refresh }));
  const allocate = useMutation(trpc.exam.markers.setAllocations.mutationOptions({ onSuccess: refresh }));
  const [invitee, setInvitee] = useState("");
  const [adding, setAdding] = useState<{ markerId: string; questionId: string; first: string; last: string } | null>(null);

  const data = markers.data;
  // An ordinary batch shows the card to its owner only, and only while markers can still be invited.
  if (!data || (!data.shared && (!isOwner || archived))) return null;
  const progressOf = (userId: string) => progress.data?.markers.find((row) => row.user_id === userId);
  const canEdit = isOwner && !archived;
  const error = invite.error ?? remove.error ?? allocate.error;

  function submitInvite(event: FormEvent) {
    event.preventDefault();
    if (invitee) invite.mutate({ batch_id: batchId, body: { user_id: invitee } }, { onSuccess: () => setInvitee("") });
  }

  function submitAllocation(event: FormEvent, current: Allocation[]) {
    event.preventDefault();
    if (!adding) return;
    const added = { question_id: adding.questionId || null, first_script: wholeNumber(adding.first), last_script: wholeNumber(adding.last) };
    allocate.mutate(
      {
        batch_id: batchId,
        user_id: adding.markerId,
        body: { allocations: [...current.map(({ question_id, first_script, last_script }) => ({ question_id, first_script, last_script })), added] },
      },
      { onSuccess: () => setAdding(null) },
    );
  }

  return (
    <section className="card markers" aria-labelledby="markers-heading">
      <header className="card__header">
        <h2 id="markers-heading">Markers</h2>
      </header>
      <p className="field__hint">
        {data.shared
          ? "Shared marking: each marker marks only what is allocated to them, and a script's question opened by one marker is held for them for 10 minutes."
          : "Invite colleagues to share the marking. Until you do, anyone on the school's staff can mark this batch."}
      </p>
      {data.markers.length > 0 ? (
        <Table caption="Markers, what they mark and their progress">
          <thead>
            <tr>
              <th scope="col">Marker</th>
              <th scope="col">Marks</th>
              <th scope="col">Progress</th>
              {canEdit ? <ActionsHeader /> : null}
            </tr>
          </thead>
          <tbody>
            {data.markers.map((marker) => {
              const row = progressOf(marker.user_id);
              const open = adding?.markerId === marker.user_id ? adding : null;
              return (
                <tr key={marker.user_id}>
                  <td>{marker.full_name}</td>
                  <td>
                    {marker.allocations.length === 0 ? (
                      <span className="muted">Nothing allocated yet</span>
                    ) : (
                      <ul className="markers__allocations">
                        {marker.allocations.map((allocation) => (
                          <li key={allocation.id}>
                            <span>{describeAllocation(allocation)}</span>
                            {canEdit ? (
                              <button
                                type="button"
                                className="link-button"
                                aria-label={`Remove ${describeAllocation(allocation)} from ${marker.full_name}`}
                                onClick={() =>
                                  allocate.mutate({
                                    batch_id: batchId,
                                    user_id: marker.user_id,
                                    body: { allocations: marker.allocations.filter((other) => other.id !== allocation.id) },
                                  })
                                }
                              >
                                Remove
                              </button>
                            ) : null}
                          </li>
                        ))}
                      </ul>
                    )}
                    {open ? (
                      <form className="markers__allocate" onSubmit={(event) => submitAllocation(event, marker.allocations)}>
                        <SelectField
                          label="Question"
                          value={open.questionId}
                          onChange={(event) => setAdding({ ...open, questionId: event.currentTarget.value })}
                          options={[{ value: "", label: "Every question" }, ...questions.map((question) => ({ value: question.id, label: `Question ${question.label}` }))]}
                        />
                        <TextField label="From script" type="number" min={1} inputMode="numeric" value={open.first} onChange={(event) => setAdding({ ...open, first: event.currentTarget.value })} />
                        <TextField label="To script" type="number" min={1} inputMode="numeric" value={open.last} onChange={(event) => setAdding({ ...open, last: event.currentTarget.value })} />
                        <Button type="submit" disabled={allocate.isPending}>
                          Allocate
                        </Button>
                        <Button type="button" variant="secondary" onClick={() => setAdding(null)}>
                          Cancel
                        </Button>
                      </form>
                    ) : null}
                  </td>
                  <td>
                    {row && row.allocated !== null ? `${row.done} of ${row.allocated} marked` : "—"}
                    {row && row.claims > 0 ? <span className="muted"> · marking now</span> : null}
                  </td>
                  {canEdit ? (
                    <td className="markers__actions">
                      {open ? null : (
                        <Button variant="secondary" onClick={() => setAdding({ markerId: marker.user_id, questionId: "", first: "", last: "" })}>
                          Allocate…
                        </Button>
                      )}
                      <Button variant="danger-quiet" onClick={() => remove.mutate({ batch_id: batchId, user_id: marker.user_id })}>
                        Remove {marker.full_name}
                      </Button>
                    </td>
                  ) : null}
                </tr>
              );
            })}
          </tbody>
        </Table>
      ) : null}
      {progress.data?.markers.some((row) => !row.is_marker) ? (
        <p className="muted">
          Also marked:{" "}
          {progress.data.markers
            .filter((row) => !row.is_marker)
            .map((row) => `${row.full_name} (${row.marks_written} mark${row.marks_written === 1 ? "" : "s"})`)
            .join(", ")}
        </p>
      ) : null}
      {canEdit && data.candidates.length > 0 ? (
        <form className="markers__invite" onSubmit={submitInvite}>
          <SelectField
            label="Invite a colleague"
            value={invitee}
            onChange={(event) => setInvitee(event.currentTarget.value)}
            options={[{ value: "", label: "Choose a colleague…" }, ...data.candidates.map((person) => ({ value: person.user_id, label: person.full_name }))]}
          />
          <Button type="submit" disabled={!invitee || invite.isPending}>
            Invite
          </Button>
        </form>
      ) : null}
      {error ? (
        <Status tone="error" title="Markers not changed">
          {errorMessage(error)}
        </Status>
      ) : null}
    </section>
  );
}
