"use client";

import { type RefObject, useEffect, useLayoutEffect, useRef } from "react";
import { type Focus, type KeyContext, type MarkingAction, shortcutFor } from "./keyboard-map";

const isTextEntry = (target: EventTarget | null) =>
  target instanceof HTMLTextAreaElement || (target instanceof HTMLInputElement && target.type !== "checkbox" && target.type !== "radio");

function focusOf(target: EventTarget | null, markInput: HTMLInputElement | null): Focus {
  if (target instanceof HTMLTextAreaElement) return "comment";
  if (target === markInput) return "mark";
  if (isTextEntry(target)) return "other-text";
  if (target instanceof HTMLInputElement && target.type === "radio") return "radio";
  if (target instanceof HTMLButtonElement || target instanceof HTMLAnchorElement) return "button";
  return "page";
}

/**
 * The marking screen's shortcuts (see keyboard-map.ts), listened for on the document so they work
 * wherever focus is (even after a click on the page). `onAction` gets the key too (a digit to type).
 */
export function useMarkingKeys({
  enabled,
  context,
  markInput,
  onAction,
}: {
  /** Off while the shortcut sheet is open. */
  enabled: boolean;
  /** What the keys act on now (a question with a rubric takes digits as items). */
  context: KeyContext;
  markInput: RefObject<HTMLInputElement | null>;
  onAction: (action: MarkingAction, key: string) => void;
}) {
  const onKeyDown = (event: KeyboardEvent) => {
    if (!enabled) return;
    const action = shortcutFor(event, focusOf(event.target, markInput.current), context);
    if (!action) return;
    event.preventDefault();
    onAction(action, event.key);
  };
  // The listener stays; the handler it calls is this render's.
  const handler = useRef(onKeyDown);
  useLayoutEffect(() => {
    handler.current = onKeyDown;
  });
  useEffect(() => {
    const listener = (event: KeyboardEvent) => {
      if (!event.defaultPrevented) handler.current(event);
    };
    document.addEventListener("keydown", listener);
    return () => document.removeEventListener("keydown", listener);
  }, []);
}
