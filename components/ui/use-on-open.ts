import { useState } from "react";

/**
 * Runs `reset` during the render in which `open` turns true, so that a dialog shows fresh fields each
 * time it opens (state adjusted during render, as React documents, rather than an effect that would
 * first paint the old values).
 */
export function useOnOpen(open: boolean, reset: () => void): void {
  const [wasOpen, setWasOpen] = useState(open);
  if (open !== wasOpen) {
    setWasOpen(open);
    if (open) reset();
  }
}
