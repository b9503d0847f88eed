"use client";

import { Button } from "@/components/ui/Button";
import { ariaKeyShortcuts } from "./keyboard-map";
import type { SaveState } from "./save-queue";
import { SaveIndicator } from "./SaveIndicator";

/**
 * "Confirm and next" (Enter) and how the mark stands beside it; "Next" on a question that is another
 * marker's on this script.
 */
export function ConfirmRow({
  notMine,
  disabled,
  onConfirm,
  saveState,
  dirty,
  confirmed,
  onRetry,
}: {
  notMine: boolean;
  disabled: boolean;
  onConfirm: () => void;
  saveState: SaveState | undefined;
  dirty: boolean;
  /** The recorded mark is confirmed and nothing has changed since. */
  confirmed: boolean;
  onRetry: () => void;
}) {
  return (
    <div className="marking__confirm-row">
      <Button onClick={onConfirm} disabled={disabled} aria-keyshortcuts={ariaKeyShortcuts("confirm")}>
        {notMine ? "Next" : "Confirm and next"}
      </Button>
      <SaveIndicator state={saveState} dirty={dirty} confirmed={confirmed} onRetry={onRetry} />
    </div>
  );
}
