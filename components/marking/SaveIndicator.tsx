import { Button } from "@/components/ui/Button";
import type { SaveState } from "./save-queue";

/**
 * How the current mark stands: saving, unsaved, saved (and confirmed), or not saved: with a Retry button
 * when sending it again could work, without one when the mark itself was refused (the reason says what to change).
 */
export function SaveIndicator({ state, dirty, confirmed, onRetry }: { state: SaveState | undefined; dirty: boolean; confirmed: boolean; onRetry: () => void }) {
  if (state?.state === "error") {
    return (
      <span className="save-indicator save-indicator--error" role="alert">
        Not saved: {state.message}
        {state.retryable ? (
          <>
            {" "}
            <Button variant="secondary" size="small" onClick={onRetry}>
              Retry
            </Button>
          </>
        ) : null}
      </span>
    );
  }
  const text = state?.state === "saving" ? "Saving…" : dirty ? "Unsaved changes" : confirmed ? "Saved and confirmed" : state?.state === "saved" ? "Saved" : "";
  return (
    <span className={`save-indicator save-indicator--${state?.state === "saving" ? "saving" : dirty ? "dirty" : "saved"}`} role="status" aria-live="polite">
      {text}
    </span>
  );
}
