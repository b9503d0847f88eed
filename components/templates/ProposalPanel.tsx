"use client";

import { Button } from "@/components/ui/Button";
import type { ProposalWarning } from "./editor-state";

interface ProposalPanelProps {
  /** Reading the paper now. */
  reading: boolean;
  /** Why the paper could not be read, as a sentence. */
  problem: string | null;
  /** Items still proposed, and how many of them to check. */
  count: number;
  toCheck: number;
  /** Whether the selected item is a proposed one (Accept applies to it). */
  selectedProposed: boolean;
  warnings: ProposalWarning[];
  readOnly: boolean;
  canReadAgain: boolean;
  onAccept: () => void;
  onAcceptAll: () => void;
  onDiscard: () => void;
  onReadAgain: () => void;
  onWarning: (warning: ProposalWarning) => void;
  onDismissWarnings: () => void;
}

/**
 * What was read from the paper (issue 37, item 2), above the question tree: how many items are still
 * proposed, the key that accepts one (A) and moves to the next to check, "Accept all", the reading's
 * sentences (each selects its question), and "Read the paper again" (it replaces only what is proposed).
 */
export function ProposalPanel(props: ProposalPanelProps) {
  const { reading, problem, count, toCheck, selectedProposed, warnings, readOnly } = props;
  if (!reading && !problem && count === 0 && warnings.length === 0) return null;
  return (
    <section className="proposal" aria-labelledby="proposal-heading" aria-busy={reading}>
      <h2 id="proposal-heading" className="proposal__heading">
        {reading ? "Reading the paper…" : count > 0 ? "Read from the paper" : "From the paper"}
      </h2>
      {problem ? <p className="proposal__problem">{problem}</p> : null}
      {count > 0 ? (
        <>
          <p className="proposal__summary" data-testid="proposal-summary">
            {count === 1 ? "1 item" : `${count} items`} proposed
            {toCheck > 0 ? (
              <>
                , <strong>{toCheck} to check</strong>
              </>
            ) : null}
            : nothing proposed is saved until you accept it.
          </p>
          {readOnly ? null : (
            <>
              <p className="proposal__keys">
                <kbd>A</kbd> accepts the selected item and goes to the next to check; <kbd>Shift</kbd>+<kbd>A</kbd> accepts all. Changing an item’s marks or area accepts it too.
              </p>
              <div className="cluster">
                <Button size="small" onClick={props.onAccept} disabled={!selectedProposed} aria-keyshortcuts="A">
                  Accept selected
                </Button>
                <Button size="small" variant="secondary" onClick={props.onAcceptAll} aria-keyshortcuts="Shift+A">
                  Accept all
                </Button>
                <Button size="small" variant="danger-quiet" onClick={props.onDiscard}>
                  Discard what was read
                </Button>
              </div>
            </>
          )}
        </>
      ) : null}
      {warnings.length > 0 ? (
        <div className="proposal__warnings">
          <ul aria-label="What the reading says">
            {warnings.map((warning) => (
              <li key={warning.message}>
                {warning.question_id ? (
                  <button type="button" className="link-button" onClick={() => props.onWarning(warning)}>
                    {warning.message}
                  </button>
                ) : (
                  warning.message
                )}
              </li>
            ))}
          </ul>
          <button type="button" className="link-button proposal__dismiss" onClick={props.onDismissWarnings}>
            Dismiss these notes
          </button>
        </div>
      ) : null}
      {props.canReadAgain && !reading && !readOnly ? (
        <p>
          <button type="button" className="link-button" onClick={props.onReadAgain}>
            Read the paper again
          </button>{" "}
          <span className="muted">(replaces only what is still proposed)</span>
        </p>
      ) : null}
    </section>
  );
}
