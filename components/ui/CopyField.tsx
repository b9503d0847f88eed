"use client";

import { useEffect, useId, useRef, useState } from "react";
import { Button } from "./Button";
import { CopyIcon } from "./icons";

interface CopyFieldProps {
  label: string;
  value: string;
  /** Moves focus to the field (and selects the text) when it appears. */
  autoFocus?: boolean;
}

/** A read-only field with a Copy button; announces the result politely. */
export function CopyField({ label, value, autoFocus = false }: CopyFieldProps) {
  const id = useId();
  const input = useRef<HTMLInputElement>(null);
  const [message, setMessage] = useState("");

  useEffect(() => {
    if (autoFocus) {
      input.current?.focus();
      input.current?.select();
    }
  }, [autoFocus]);

  async function copy() {
    input.current?.select();
    try {
      await navigator.clipboard.writeText(value);
      setMessage("Copied to the clipboard.");
    } catch {
      // Clipboard access can be refused (insecure origin, permissions): the text is selected instead.
      setMessage("Could not copy automatically: the text is selected, press Ctrl+C (⌘C on a Mac).");
    }
  }

  return (
    <div className="field">
      <label className="field__label" htmlFor={id}>
        {label}
      </label>
      <div className="copy-field">
        <input
          ref={input}
          id={id}
          className="input input--mono"
          readOnly
          value={value}
          spellCheck={false}
          onFocus={(event) => event.currentTarget.select()}
        />
        <Button variant="secondary" onClick={() => void copy()}>
          <CopyIcon size={16} />
          Copy
        </Button>
      </div>
      <p className="field__hint" role="status">
        {message}
      </p>
    </div>
  );
}
