"use client";

import { useEffect, useId, useRef, type FormEvent, type ReactNode } from "react";
import { Button } from "./Button";

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
  className,
  children,
}: FormDialogProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      element.showModal();
      element.querySelector<HTMLElement>("input:not([type=hidden]):not([readonly]), select, textarea")?.focus();
    }
    if (!open && element.open) element.close();
  }, [open]);

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!busy) onSubmit();
  }

  return (
    <dialog
      ref={dialog}
      className={["dialog", "form-dialog", className].filter(Boolean).join(" ")}
      aria-labelledby={titleId}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onClose();
      }}
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
              Cancel
            </Button>
            <Button type="submit" loading={busy} loadingLabel={busyLabel}>
              {submitLabel}
            </Button>
          </div>
        </form>
      ) : null}
    </dialog>
  );
}
