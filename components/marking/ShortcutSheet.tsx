"use client";

import { useEffect, useId, useRef } from "react";
import { Button } from "@/components/ui/Button";
import { shortcuts, shownKeys } from "./keyboard-map";

/** The keyboard shortcuts of the marking screen (keyboard-map.ts), in a modal dialog. */
export function ShortcutSheet({ open, onClose }: { open: boolean; onClose: () => void }) {
  const dialog = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const element = dialog.current;
    if (!element) return;
    if (open && !element.open) element.showModal();
    if (!open && element.open) element.close();
  }, [open]);
  return (
    <dialog ref={dialog} className="dialog" aria-labelledby={titleId} onClose={onClose} onCancel={(e) => { e.preventDefault(); onClose(); }}>
      <div className="dialog__body">
        <h2 id={titleId}>Keyboard shortcuts</h2>
        <dl className="shortcut-list">
          {shortcuts.map(({ keys, description }) => (
            <div key={shownKeys(keys)}>
              <dt>
                <kbd>{shownKeys(keys)}</kbd>
              </dt>
              <dd>{description}</dd>
            </div>
          ))}
        </dl>
      </div>
      <div className="dialog__actions">
        <Button onClick={onClose} autoFocus>
          Close
        </Button>
      </div>
    </dialog>
  );
}
