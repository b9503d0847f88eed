"use client";

import { useId } from "react";
import { Button } from "@/components/ui/Button";
import { Modal } from "@/components/ui/Modal";
import { shortcuts, shownKeys } from "./keyboard-map";

/** The keyboard shortcuts of the marking screen (keyboard-map.ts), in a modal dialog. */
export function ShortcutSheet({ open, onClose }: { open: boolean; onClose: () => void }) {
  const titleId = useId();
  return (
    <Modal open={open} labelledBy={titleId} onClose={onClose}>
      <div className="dialog__body">
        <h2 id={titleId}>Keyboard shortcuts</h2>
        <dl className="shortcut-list">
          {shortcuts.map(({ keys, description, shown }) => (
            <div key={shown ?? shownKeys(keys)}>
              <dt>
                <kbd>{shown ?? shownKeys(keys)}</kbd>
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
    </Modal>
  );
}
