"use client";

import Link from "next/link";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { SubmissionStateBadge } from "@/components/batches/SubmissionStateBadge";
import { ReviewRequestsLink } from "@/components/batches/reviews/ReviewRequestsLink";
import type { SubmissionFacts } from "@/lib/rules/submission-state";
import { ariaKeyShortcuts } from "./keyboard-map";
import type { MarkingMode } from "./marking-order";

/**
 * The bar above a marking screen: back to the batch, whose script this is and how far through the
 * scripts, its state, the order of marking (by student or by question), the previous and next script,
 * and the shortcut sheet.
 */
export function MarkingBar({
  batchId,
  batchTitle,
  studentName,
  anonymous,
  allocated,
  scriptIndex,
  scriptCount,
  submission,
  progress,
  mode,
  onModeChange,
  onGoToScript,
  onShowShortcuts,
}: {
  batchId: string;
  batchTitle: string;
  /** The student's name, or the script's number on an anonymous batch. */
  studentName: string;
  anonymous: boolean;
  /** The marker marks their allocation only. */
  allocated: boolean;
  scriptIndex: number;
  scriptCount: number;
  /** The script's state, following its marks on screen. */
  submission: SubmissionFacts;
  progress: { marked: number; of: number };
  mode: MarkingMode;
  onModeChange: (mode: MarkingMode) => void;
  onGoToScript: (index: number) => void;
  onShowShortcuts: () => void;
}) {
  return (
    <header className="marking__bar">
      <Link href={`/batches/${batchId}`} className="back-link">
        ← {batchTitle}
      </Link>
      <div className="marking__who">
        <h1 className="marking__student">{studentName}</h1>
        <span className="muted">{anonymous ? `${scriptIndex + 1} of ${scriptCount} scanned scripts` : `Script ${scriptIndex + 1} of ${scriptCount}`}</span>
        {anonymous ? <Badge tone="neutral">Anonymous</Badge> : null}
        {allocated ? <Badge tone="neutral">Your allocation</Badge> : null}
        <SubmissionStateBadge submission={submission} progress={progress} />
      </div>
      <div className="marking__bar-actions">
        <fieldset className="segmented marking__mode">
          <legend className="visually-hidden">Marking order</legend>
          <label className="segmented__option">
            <input type="radio" name="marking-mode" checked={mode === "student"} onChange={() => onModeChange("student")} />
            By student
          </label>
          <label className="segmented__option">
            <input type="radio" name="marking-mode" checked={mode === "question"} onChange={() => onModeChange("question")} />
            By question
          </label>
        </fieldset>
        <Button variant="secondary" size="small" onClick={() => onGoToScript(scriptIndex - 1)} disabled={scriptIndex <= 0} aria-keyshortcuts={ariaKeyShortcuts("previousScript")}>
          ← Previous script
        </Button>
        <Button variant="secondary" size="small" onClick={() => onGoToScript(scriptIndex + 1)} disabled={scriptIndex >= scriptCount - 1} aria-keyshortcuts={ariaKeyShortcuts("nextScript")}>
          Next script →
        </Button>
        <ReviewRequestsLink batchId={batchId} size="small" />
        <Button variant="secondary" size="small" onClick={onShowShortcuts} aria-keyshortcuts={ariaKeyShortcuts("showShortcuts")}>
          Shortcuts <kbd>?</kbd>
        </Button>
      </div>
    </header>
  );
}
