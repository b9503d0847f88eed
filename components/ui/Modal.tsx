"use client";

import { type ReactNode, useEffect, useLayoutEffect, useRef } from "react";

interface ModalProps {
  open: boolean;
  /** The id of the heading that names the dialog. */
  labelledBy: string;
  describedBy?: string;
  /** Classes beside `dialog` (for example `dialog--wide`). */
  className?: string;
  /** While busy, Escape does not close: the work under way would be cut off. */
  busy?: boolean;
  onClose: () => void;
  /** Runs right after the dialog opens (for example to focus the first field). */
  onOpen?: (element: HTMLDialogElement) => void;
  children: ReactNode;
}

/**
 * The shell of every modal: the native <dialog> opened with showModal() while `open` (the browser traps
 * focus and returns it to the opener), and Escape asks the owner to close instead of closing by itself,
 * so that `open` stays the one source of truth.
 */
export function Modal({ open, labelledBy, describedBy, className, busy = false, onClose, onOpen, children }: ModalProps) {
  const dialog = useRef<HTMLDialogElement>(null);
  const opened = useRef(onOpen);
  useLayoutEffect(() => {
    opened.current = onOpen;
  });

  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) {
      element.showModal();
      opened.current?.(element);
    }
    if (!open && element.open) element.close();
  }, [open]);

  return (
    <dialog
      ref={dialog}
      className={["dialog", className].filter(Boolean).join(" ")}
      aria-labelledby={labelledBy}
      aria-describedby={describedBy}
      onCancel={(event) => {
        event.preventDefault();
        if (!busy) onClose();
      }}
    >
      {children}
    </dialog>
  );
}
