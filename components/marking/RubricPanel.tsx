"use client";

import type { ReactNode } from "react";
import { type RubricItemView, formatPoints, itemKey } from "@/components/rubric/rubric-items";
import { type RubricChange, noMarksKey } from "./rubric-marks";

/**
 * A question's rubric on the marking screen, every item on screen (the panel gives it the room it
 * needs; the mark scheme above it gives way): each item with the key that applies it, its points and
 * its saved comment; applied items are pressed. A click applies or removes an item as its key does.
 * "No marks" gives 0 on purpose (key 0 while no tenth item takes it). The last change is shown on its
 * item ("Removed", "Applied") and said in a live region under the items, so a key pressed twice never
 * removes an item unnoticed.
 */
export function RubricPanel({
  questionLabel,
  items,
  applied,
  zeroGiven,
  lastChange,
  disabled,
  action,
  onToggle,
  onNoMarks,
}: {
  questionLabel: string;
  items: readonly RubricItemView[];
  applied: readonly string[];
  /** "No marks" is the mark: no item applied and 0 typed or recorded. */
  zeroGiven: boolean;
  /** What the last key or click changed on this question, if anything. */
  lastChange: Pick<RubricChange, "said" | "changed"> | null;
  disabled: boolean;
  /** The owner's "Edit rubric". */
  action?: ReactNode;
  onToggle: (index: number) => void;
  onNoMarks: () => void;
}) {
  const zeroKey = noMarksKey(items.length);
  return (
    <section className="rubric marking__rubric" aria-label={`Rubric of question ${questionLabel}`}>
      <div className="marking__rubric-head">
        {/* Each item shows its own key: the heading stays one short line, beside the buttons. */}
        <h3 className="marking__subheading">Rubric</h3>
        <span className="cluster marking__rubric-actions">
          <button
            type="button"
            className="rubric__no-marks"
            aria-pressed={zeroGiven}
            aria-keyshortcuts={zeroKey ?? undefined}
            disabled={disabled}
            onClick={onNoMarks}
          >
            No marks{zeroKey ? <kbd aria-hidden="true">{zeroKey}</kbd> : null}
          </button>
          {action}
        </span>
      </div>
      <ul className="rubric__items">
        {items.map((item, index) => {
          const key = itemKey(index);
          const on = applied.includes(item.id);
          const changed = lastChange?.changed?.itemId === item.id ? lastChange.changed : null;
          return (
            <li key={item.id}>
              <button
                type="button"
                className={`rubric__item${on ? " rubric__item--applied" : ""}${changed && !changed.applied ? " rubric__item--removed" : ""}`}
                aria-pressed={on}
                aria-keyshortcuts={key ?? undefined}
                disabled={disabled}
                onClick={() => onToggle(index)}
              >
                <kbd className="rubric__key" aria-hidden={key === null}>
                  {key ?? "·"}
                </kbd>
                <span className="rubric__text">
                  <span>
                    {item.text}
                    {item.spec_ref ? <span className="rubric__spec"> {item.spec_ref}</span> : null}
                  </span>
                  {item.comment ? <span className="rubric__comment">“{item.comment}”</span> : null}
                </span>
                <span className="rubric__end">
                  <span className={`rubric__points${item.points < 0 ? " rubric__points--minus" : ""}`}>{formatPoints(item.points)}</span>
                  {/* Seen on the item itself; the live region below says it. */}
                  {changed ? (
                    <span className={`rubric__flag rubric__flag--${changed.applied ? "applied" : "removed"}`} aria-hidden="true">
                      {changed.applied ? "Applied" : "Removed"}
                    </span>
                  ) : null}
                </span>
              </button>
            </li>
          );
        })}
      </ul>
      {/* Always in the page, so that each change is announced; empty until the first. */}
      <p className={`rubric__change${lastChange?.changed && !lastChange.changed.applied ? " rubric__change--removed" : ""}`} role="status" aria-live="polite">
        {lastChange?.said ?? ""}
      </p>
    </section>
  );
}
