import { Spinner } from "@/components/ui/Spinner";
import { AlertIcon, CheckCircleIcon } from "@/components/ui/icons";

export type SaveState = { kind: "saved" } | { kind: "dirty" } | { kind: "saving" } | { kind: "error"; message: string };

/** A compact, always-visible save state; announced politely when it changes. */
export function SaveStatus({ state }: { state: SaveState }) {
  return (
    <p className={`save-status save-status--${state.kind}`} role="status" data-state={state.kind}>
      {state.kind === "saving" ? <Spinner /> : null}
      {state.kind === "saved" ? <CheckCircleIcon size={16} /> : null}
      {state.kind === "error" ? <AlertIcon size={16} /> : null}
      {state.kind === "dirty" ? <span className="save-status__dot" aria-hidden="true" /> : null}
      <span>{{ saved: "All changes saved", dirty: "Unsaved changes", saving: "Saving…", error: "Not saved" }[state.kind]}</span>
    </p>
  );
}
