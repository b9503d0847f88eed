"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { useId, useState } from "react";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { ConfirmDialog } from "@/components/ui/ConfirmDialog";
import { FormDialog } from "@/components/ui/FormDialog";
import { Status } from "@/components/ui/Status";
import { LocalDate } from "@/components/ui/dates";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import type { AppRouter } from "@/server/trpc/root";

type ReleaseState = inferRouterOutputs<AppRouter>["exam"]["release"]["status"];

const scripts = (n: number) => `${n} script${n === 1 ? "" : "s"}`;

/** The end of a calendar day (`2026-12-20`) in the reader's time zone, as the ISO date-time the server takes. */
const endOfDay = (day: string) => new Date(`${day}T23:59:59`).toISOString();
/** A moment's calendar day in the reader's time zone, as an <input type="date"> value. */
const dayOf = (moment: Date) => `${moment.getFullYear()}-${String(moment.getMonth() + 1).padStart(2, "0")}-${String(moment.getDate()).padStart(2, "0")}`;
const today = () => dayOf(new Date());

/**
 * Results back to students (issue 35, item 2) on the batch page: the release's state for everyone who
 * sees the batch, and for its owner "Release results" (a dialog: which scripts, reviews open until a
 * day, the moderation warning when the server reports it) and "Withdraw" (asks first).
 */
export function ReleaseCard({ batchId }: { batchId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const status = useQuery(trpc.exam.release.status.queryOptions({ batch_id: batchId }));
  const [dialog, setDialog] = useState<"release" | "withdraw" | null>(null);
  const refresh = () => queryClient.invalidateQueries({ queryKey: trpc.exam.release.status.queryKey({ batch_id: batchId }) });
  const withdraw = useMutation(trpc.exam.release.withdraw.mutationOptions());

  if (!status.data) {
    return status.isError ? (
      <Status tone="error" title="The release could not be read">
        {errorMessage(status.error)}
      </Status>
    ) : null;
  }
  const state = status.data;
  const withdrawNow = async () => {
    const done = await withdraw.mutateAsync({ batch_id: batchId }).catch(() => null);
    if (!done) return; // the dialog stays open and says why
    setDialog(null);
    await refresh();
  };

  return (
    <section className="card release" aria-labelledby="release-heading" data-testid="release-card">
      <header className="card__header release__header">
        <h2 id="release-heading">Results for students</h2>
        <Badge tone={state.released ? "success" : "neutral"}>{state.released ? "Released" : "Not released"}</Badge>
      </header>
      {state.released && state.released_at ? (
        <p data-testid="release-state">
          Released on <LocalDate value={state.released_at} style="date" />
          {state.released_by_name ? ` by ${state.released_by_name}` : ""}: {scripts(state.released_scripts)} ({state.scope === "complete" ? "only completely marked ones" : "every script students sat"}).{" "}
          {state.reviews_until ? (
            <>
              Students can ask for reviews until <LocalDate value={state.reviews_until} style="date" />.
            </>
          ) : (
            "Review requests are not open."
          )}
        </p>
      ) : (
        <p className="muted" data-testid="release-state">
          Not released: students see nothing of this batch yet. {scripts(state.complete_scripts)} completely marked, {scripts(state.incomplete_scripts)} not yet.
        </p>
      )}
      {state.scripts_without_work > 0 ? (
        <p className="field__hint">
          {state.scripts_without_work === 1 ? "1 student has" : `${state.scripts_without_work} students have`} neither a scan nor a mark: nothing is released to them.
        </p>
      ) : null}
      {state.moderation_pending ? (
        <p className="muted" role="note">
          Moderation is not signed off yet: marks may still change.
        </p>
      ) : null}
      {state.can_release || state.can_withdraw ? (
        <div className="batch__actions">
          {state.can_release ? (
            <Button variant={state.released ? "secondary" : "primary"} onClick={() => setDialog("release")}>
              {state.released ? "Change release" : "Release results"}
            </Button>
          ) : null}
          {state.can_withdraw ? (
            <Button variant="danger-quiet" onClick={() => setDialog("withdraw")}>
              Withdraw
            </Button>
          ) : null}
        </div>
      ) : null}

      <ReleaseDialog
        // A new dialog each time it opens: its choices start from the release as it stands.
        key={dialog === "release" ? "open" : "closed"}
        open={dialog === "release"}
        batchId={batchId}
        state={state}
        onClose={() => setDialog(null)}
        onReleased={async () => {
          setDialog(null);
          await refresh();
        }}
        onRefused={refresh}
      />
      <ConfirmDialog
        open={dialog === "withdraw"}
        title="Withdraw the results?"
        confirmLabel="Withdraw"
        busyLabel="Withdrawing…"
        busy={withdraw.isPending}
        onCancel={() => setDialog(null)}
        onConfirm={() => void withdrawNow()}
      >
        <p>Students will no longer see their scripts, marks or comments of this batch. You can release them again later.</p>
        {withdraw.isError ? <p role="alert">{errorMessage(withdraw.error)}</p> : null}
      </ConfirmDialog>
    </section>
  );
}

function ReleaseDialog({
  open,
  batchId,
  state,
  onClose,
  onReleased,
  onRefused,
}: {
  open: boolean;
  batchId: string;
  state: ReleaseState;
  onClose: () => void;
  onReleased: () => Promise<void>;
  onRefused: () => Promise<void>;
}) {
  const trpc = useTRPC();
  const id = useId();
  const release = useMutation(trpc.exam.release.release.mutationOptions());
  const [scope, setScope] = useState<"all" | "complete">(state.scope ?? "all");
  const [reviewsUntil, setReviewsUntil] = useState(state.reviews_until ? dayOf(new Date(state.reviews_until)) : "");
  const [confirmed, setConfirmed] = useState(false);
  const [dateError, setDateError] = useState<string | null>(null);
  const needsConfirmation = state.moderation_pending;

  const close = () => {
    release.reset();
    setDateError(null);
    onClose();
  };
  const submit = async () => {
    if (reviewsUntil && reviewsUntil < today()) {
      setDateError("Choose today or a later day, or leave it empty for no reviews.");
      return;
    }
    setDateError(null);
    const done = await release
      .mutateAsync({ batch_id: batchId, scope, reviews_until: reviewsUntil ? endOfDay(reviewsUntil) : null, confirm_unmoderated: needsConfirmation ? confirmed : undefined })
      .catch(() => null);
    if (done) {
      release.reset();
      await onReleased();
    } else {
      // Moderation may have started since the page was read: the state says so, and the warning shows.
      await onRefused();
    }
  };

  return (
    <FormDialog
      open={open}
      title={state.released ? "Change the release" : "Release results to students"}
      description="Each student sees only their own script: the scan, its marks and comments."
      submitLabel={state.released ? "Save the release" : "Release results"}
      busyLabel="Releasing…"
      busy={release.isPending}
      onSubmit={() => void submit()}
      onClose={close}
    >
      <fieldset className="release__scope">
        <legend className="field__label">Which scripts</legend>
        <label className="checkbox">
          <input type="radio" name={`${id}-scope`} value="all" checked={scope === "all"} onChange={() => setScope("all")} />
          All scripts students sat ({state.complete_scripts + state.incomplete_scripts})
        </label>
        <label className="checkbox">
          <input type="radio" name={`${id}-scope`} value="complete" checked={scope === "complete"} onChange={() => setScope("complete")} />
          Only completely marked scripts ({state.complete_scripts})
        </label>
      </fieldset>
      <div className="field">
        <label className="field__label" htmlFor={`${id}-until`}>
          Reviews open until (optional)
        </label>
        <input
          id={`${id}-until`}
          className="input"
          type="date"
          min={today()}
          value={reviewsUntil}
          onChange={(event) => setReviewsUntil(event.currentTarget.value)}
          aria-describedby={`${id}-until-hint${dateError ? ` ${id}-until-error` : ""}`}
          aria-invalid={dateError ? true : undefined}
        />
        <p className="field__hint" id={`${id}-until-hint`}>
          Students can ask for a question to be looked at again until the end of this day. Leave it empty for no review requests.
        </p>
        {dateError ? (
          <p className="field__error" id={`${id}-until-error`}>
            {dateError}
          </p>
        ) : null}
      </div>
      {needsConfirmation ? (
        <Status tone="warning" title="Moderation is not signed off" role="none">
          <p>This batch is being moderated and a department head has not signed it off: marks may still change after students have read them.</p>
          <label className="checkbox">
            <input type="checkbox" checked={confirmed} onChange={(event) => setConfirmed(event.currentTarget.checked)} />
            Release anyway
          </label>
        </Status>
      ) : null}
      {release.isError ? (
        <p role="alert" className="field__error">
          {errorMessage(release.error)}
        </p>
      ) : null}
    </FormDialog>
  );
}
