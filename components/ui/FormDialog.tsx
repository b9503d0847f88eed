"use client";

import { useId, type FormEvent, type ReactNode } from "react";
import { Button } from "./Button";
import { Modal } from "./Modal";

interface FormDialogProps {
  open: boolean;
  title: string;
  /** Text under the title: what the form changes. */
  description?: ReactNode;
  submitLabel: string;
  busyLabel?: string;
  busy?: boolean;
  onSubmit: () => void;
  onClose: () => void;
  /** Extra actions on the left of the footer (for example Delete). */
  secondaryAction?: ReactNode;
  /** False when there is nothing to submit (the form says why): no submit button, and Cancel reads Close. */
  canSubmit?: boolean;
  className?: string;
  children: ReactNode;
}

/**
 * A modal form on the native <dialog> (focus trapped by the browser, Escape closes, focus returns to
 * the opener). The first field takes focus; Enter submits.
 */
export function FormDialog({
  open,
  title,
  description,
  submitLabel,
  busyLabel,
  busy = false,
  onSubmit,
  onClose,
  secondaryAction,
  canSubmit = true,
  className,
  children,
}: FormDialogProps) {
  const titleId = useId();

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!busy && canSubmit) onSubmit();
  }

  return (
    <Modal
      open={open}
      labelledBy={titleId}
      className={["form-dialog", className].filter(Boolean).join(" ")}
      busy={busy}
      onClose={onClose}
      onOpen={focusFirstField}
    >
      {open ? (
        <form onSubmit={submit} noValidate>
          <div className="dialog__body form-stack">
            <div>
              <h2 id={titleId}>{title}</h2>
              {description ? <p className="muted form-dialog__description">{description}</p> : null}
            </div>
            {children}
          </div>
          <div className="dialog__actions">
            {secondaryAction ? <div className="form-dialog__secondary">{secondaryAction}</div> : null}
            <Button variant="secondary" onClick={onClose} disabled={busy}>
              {canSubmit ? "Cancel" : "Close"}
            </Button>
            {canSubmit ? (
              <Button type="submit" loading={busy} loadingLabel={busyLabel}>
                {submitLabel}
              </Button>
            ) : null}
          </div>
        </form>
      ) : null}
    </Modal>
  );
}

function focusFirstField(dialog: HTMLDialogElement) {
  dialog.querySelector<HTMLElement>("input:not([type=hidden]):not([readonly]), select, textarea")?.focus();
}
