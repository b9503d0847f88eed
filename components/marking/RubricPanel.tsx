"use client";

import { type RubricItemView, formatPoints, itemKey } from "@/components/rubric/rubric-items";

/**
 * A question's rubric on the marking screen: each item with the key that applies it, its points and
 * its saved comment; applied items are pressed. A click applies or removes an item as its key does.
 */
export function RubricPanel({
  questionLabel,
  items,
  applied,
  disabled,
  onToggle,
}: {
  questionLabel: string;
  items: readonly RubricItemView[];
  applied: readonly string[];
  disabled: boolean;
  onToggle: (index: number) => void;
}) {
  return (
    <section className="rubric" aria-label={`Rubric of question ${questionLabel}`}>
      <ul className="rubric__items">
        {items.map((item, index) => {
          const key = itemKey(index);
          const on = applied.includes(item.id);
          return (
            <li key={item.id}>
              <button
                type="button"
                className={`rubric__item${on ? " rubric__item--applied" : ""}`}
                aria-pressed={on}
                aria-keyshortcuts={key ?? undefined}
                disabled={disabled}
                onClick={() => onToggle(index)}
              >
                <kbd className="rubric__key" aria-hidden={key === null}>
                  {key ?? "·"}
                </kbd>
                <span className="rubric__text">
                  {item.text}
                  {item.spec_ref ? <span className="rubric__spec"> {item.spec_ref}</span> : null}
                  {item.comment ? <span className="rubric__comment">“{item.comment}”</span> : null}
                </span>
                <span className={`rubric__points${item.points < 0 ? " rubric__points--minus" : ""}`}>{formatPoints(item.points)}</span>
              </button>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
