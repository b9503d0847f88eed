"use client";

import { useId, type ReactNode } from "react";
import { Button } from "./Button";
import { Modal } from "./Modal";

interface ConfirmDialogProps {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  busyLabel?: string;
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}

/**
 * A modal confirmation on the native <dialog>: the browser traps focus, Escape cancels, and focus
 * returns to the button that opened it. The safe choice (Cancel) has the initial focus.
 */
export function ConfirmDialog({ open, title, children, confirmLabel, busyLabel, busy, onConfirm, onCancel }: ConfirmDialogProps) {
  const titleId = useId();
  const bodyId = useId();

  return (
    <Modal open={open} labelledBy={titleId} describedBy={bodyId} busy={busy} onClose={onCancel}>
      <div className="dialog__body">
        <h2 id={titleId}>{title}</h2>
        <div id={bodyId} className="muted">
          {children}
        </div>
      </div>
      <div className="dialog__actions">
        <Button variant="secondary" onClick={onCancel} disabled={busy} autoFocus>
          Cancel
        </Button>
        <Button variant="danger" onClick={onConfirm} loading={busy} loadingLabel={busyLabel}>
          {confirmLabel}
        </Button>
      </div>
    </Modal>
  );
}
