"use client";

import { useEffect, useId, useRef } from "react";
import { Button } from "@/components/ui/Button";

export const shortcuts: [string, string][] = [
  ["0–9 .", "Type the mark"],
  ["Enter", "Confirm the mark and move on: by student to the next question (then the next script); by question to the next script (then the next question)"],
  ["j or ↓", "Next question"],
  ["k or ↑", "Previous question"],
  ["]", "Next student's script"],
  ["[", "Previous student's script"],
  ["c", "Write a comment (Enter in the comment confirms, Shift+Enter adds a line)"],
  ["Esc", "Back to the mark"],
  ["?", "Show this sheet"],
];

/** The keyboard shortcuts of the marking screen, in a modal dialog. */
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
          {shortcuts.map(([keys, action]) => (
            <div key={keys}>
              <dt>
                <kbd>{keys}</kbd>
              </dt>
              <dd>{action}</dd>
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
