"use client";

import { useId, useRef, useState, type DragEvent, type ReactNode } from "react";
import { Button } from "@/components/ui/Button";
import { SelectField } from "@/components/ui/Field";
import { UploadError, formatBytes } from "@/components/ui/upload";
import { type ScanMatching, type UploadedPile, type UploadedScan, uploadPile, uploadScan } from "./upload-scan";

type Outcome =
  | { state: "waiting" }
  | { state: "uploading"; fraction: number }
  | { state: "done"; submission: UploadedScan }
  /** A pile of printed scripts: its pages are read and filed by a job (IntakeProgress follows it). */
  | { state: "queued"; pile: UploadedPile }
  /**
   * `transient`: the network or the server failed, and the same file may go through later (Try again).
   * `asPile`: the file is not one student's script (a class's pile dropped "In order"): it can be read as a pile.
   */
  | { state: "refused"; reason: string; transient: boolean; asPile: boolean };

/** How a file's scans find their students: by the codes printed on the pages, in roster order, or chosen. */
type Mode = "codes" | "ordered" | "manual";

interface Item {
  key: string;
  file: File;
  matching: ScanMatching | { method: "codes" };
  outcome: Outcome;
}

interface StudentOption {
  id: string;
  name: string;
  hasScan: boolean;
}

/**
 * Scan intake: drop (or pick) many PDFs; each uploads in turn, in the order given (so in-order
 * matching follows the pile of scripts), with its own progress bar and what became of it. Scripts
 * printed from Markbook go up as whole piles: any number of scripts per file, in any order.
 */
export function ScanIntake({
  batchId,
  students,
  disabled,
  printed,
  anonymous = false,
  onUploaded,
  unmatchedAction,
}: {
  batchId: string;
  students: StudentOption[];
  disabled: boolean;
  /** The batch's scripts were printed with codes: piles are then what the teacher uploads, by default. */
  printed: boolean;
  /** An anonymous batch: no names to choose from, so no "To a chosen student" (identify afterwards). */
  anonymous?: boolean;
  onUploaded: () => void;
  /** What can be done about a scan that ended unmatched (assign it), shown after its outcome. */
  unmatchedAction?: (submissionId: string) => ReactNode;
}) {
  const [chosenMode, setMode] = useState<Mode | null>(null);
  const mode: Mode = chosenMode ?? (printed ? "codes" : "ordered");
  const [studentId, setStudentId] = useState("");
  const [items, setItems] = useState<Item[]>([]);
  const [dragging, setDragging] = useState(false);
  const running = useRef(false);
  const queue = useRef<Item[]>([]);
  const input = useRef<HTMLInputElement>(null);
  const groupName = useId();

  const update = (key: string, outcome: Outcome) => setItems((all) => all.map((item) => (item.key === key ? { ...item, outcome } : item)));

  async function drain() {
    if (running.current) return;
    running.current = true;
    while (queue.current.length > 0) {
      const item = queue.current.shift()!;
      update(item.key, { state: "uploading", fraction: 0 });
      try {
        const progress = (fraction: number) => update(item.key, { state: "uploading", fraction });
        if (item.matching.method === "codes") update(item.key, { state: "queued", pile: await uploadPile(batchId, item.file, progress) });
        else update(item.key, { state: "done", submission: await uploadScan(batchId, item.file, item.matching, progress) });
      } catch (error) {
        update(item.key, {
          state: "refused",
          reason: error instanceof Error ? error.message : String(error),
          transient: error instanceof UploadError && error.transient,
          asPile: error instanceof UploadError && error.uploadInstead === "pile",
        });
      }
      onUploaded();
    }
    running.current = false;
  }

  /** Sends the item's file again; `asPile`: as a pile read by its codes, not as one student's scan. */
  function retry(item: Item, asPile = false) {
    const again: Item = { ...item, matching: asPile ? { method: "codes" } : item.matching, outcome: { state: "waiting" } };
    setItems((all) => all.map((existing) => (existing.key === item.key ? again : existing)));
    queue.current.push(again);
    void drain();
  }

  function add(files: FileList | File[]) {
    const list = Array.from(files);
    if (list.length === 0 || disabled) return;
    const matching: Item["matching"] = mode === "codes" ? { method: "codes" } : mode === "manual" && studentId ? { method: "manual", studentId } : { method: "ordered" };
    const added: Item[] = list.map((file) => ({ key: `${Date.now()}-${Math.random().toString(36).slice(2)}`, file, matching, outcome: { state: "waiting" } }));
    setItems((all) => [...all, ...added]);
    queue.current.push(...added);
    void drain();
  }

  const uploaded = items.filter((i) => i.outcome.state === "done" || i.outcome.state === "queued").length;
  const failed = items.filter((i) => i.outcome.state === "refused").length;
  const pending = items.length - uploaded - failed;
  // The bar measures what is still on its way; a refused file never counts as uploaded.
  const overall = items.length === 0 ? 0 : items.reduce((sum, i) => sum + (i.outcome.state === "uploading" ? i.outcome.fraction : i.outcome.state === "waiting" ? 0 : 1), 0) / items.length;
  const manualBlocked = mode === "manual" && !studentId;

  return (
    <section className="card scan-intake" aria-labelledby="scan-intake-heading">
      <header className="card__header">
        <h2 id="scan-intake-heading">Upload scans</h2>
        <p className="card__description">
          {mode === "codes"
            ? "Whole piles from the copier: any number of printed scripts per PDF, pages in any order. Each page finds its student by its code."
            : "One PDF per student's script. Files upload in the order you add them."}
        </p>
      </header>
      <fieldset className="segmented" disabled={disabled}>
        <legend>Match each scan</legend>
        <label className="segmented__option">
          <input type="radio" name={groupName} value="codes" checked={mode === "codes"} onChange={() => setMode("codes")} />
          By the codes printed on the pages
        </label>
        <label className="segmented__option">
          <input type="radio" name={groupName} value="ordered" checked={mode === "ordered"} onChange={() => setMode("ordered")} />
          In order (next student without a scan)
        </label>
        {anonymous ? null : (
          <label className="segmented__option">
            <input type="radio" name={groupName} value="manual" checked={mode === "manual"} onChange={() => setMode("manual")} />
            To a chosen student
          </label>
        )}
      </fieldset>
      {anonymous ? <p className="field__hint">Anonymous marking: a scan goes to a student by its code or in order; any other is identified afterwards.</p> : null}
      {mode === "manual" ? (
        <SelectField
          label="Student"
          value={studentId}
          onChange={(e) => setStudentId(e.currentTarget.value)}
          options={[{ value: "", label: "Choose a student…" }, ...students.map((s) => ({ value: s.id, label: s.hasScan ? `${s.name} (has a scan: replaces it)` : s.name }))]}
          disabled={disabled}
        />
      ) : null}
      <div
        className={["dropzone", dragging && "dropzone--active", (disabled || manualBlocked) && "dropzone--disabled"].filter(Boolean).join(" ")}
        onDragOver={(event: DragEvent) => {
          event.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={(event: DragEvent) => {
          event.preventDefault();
          setDragging(false);
          if (!manualBlocked) add(event.dataTransfer.files);
        }}
      >
        <p className="dropzone__title">
          {disabled ? "This batch is archived: it takes no more scans." : manualBlocked ? "Choose the student first." : mode === "codes" ? "Drop scanned piles (PDF) here" : "Drop PDF scans here"}
        </p>
        <input
          ref={input}
          type="file"
          accept="application/pdf,.pdf"
          multiple
          className="visually-hidden"
          id="scan-file-input"
          aria-label="Choose PDF scans"
          disabled={disabled || manualBlocked}
          onChange={(event) => {
            if (event.currentTarget.files) add(event.currentTarget.files);
            event.currentTarget.value = "";
          }}
        />
        <Button variant="secondary" onClick={() => input.current?.click()} disabled={disabled || manualBlocked}>
          Choose files…
        </Button>
      </div>
      {items.length > 0 ? (
        <>
          <div className="upload-summary">
            <span>
              {uploaded} of {items.length} file{items.length === 1 ? "" : "s"} uploaded
              {failed > 0 ? `, ${failed} not uploaded` : ""}
            </span>
            {pending > 0 ? <progress max={1} value={overall} aria-label="All uploads" /> : null}
          </div>
          <ul className="upload-list" aria-label="Uploaded scans">
            {items.map((item) => (
              <li key={item.key} className={`upload-item upload-item--${item.outcome.state}`}>
                <div className="upload-item__name">
                  <strong>{item.file.name}</strong> <span className="muted">{formatBytes(item.file.size)}</span>
                </div>
                {item.outcome.state === "uploading" || item.outcome.state === "waiting" ? (
                  <progress max={1} value={item.outcome.state === "uploading" ? item.outcome.fraction : 0} aria-label={`Upload of ${item.file.name}`} />
                ) : null}
                <p className="upload-item__result" role={item.outcome.state === "refused" ? "alert" : undefined}>
                  {describe(item.outcome)}
                  {item.outcome.state === "done" && isUnmatched(item.outcome.submission) && unmatchedAction ? (
                    <> {unmatchedAction(item.outcome.submission.id)}</>
                  ) : null}
                  {item.outcome.state === "refused" && item.outcome.asPile && !disabled ? (
                    <>
                      {" "}
                      <Button variant="secondary" onClick={() => retry(item, true)}>
                        Read it as a pile instead
                      </Button>
                    </>
                  ) : null}
                  {item.outcome.state === "refused" && item.outcome.transient && !disabled ? (
                    <>
                      {" "}
                      <button type="button" className="link-button" onClick={() => retry(item)}>
                        Try again
                      </button>
                    </>
                  ) : null}
                </p>
              </li>
            ))}
          </ul>
        </>
      ) : null}
    </section>
  );
}

function describe(outcome: Outcome): string {
  switch (outcome.state) {
    case "waiting":
      return "Waiting…";
    case "uploading":
      return `Uploading… ${Math.round(outcome.fraction * 100)}%`;
    case "refused":
      return outcome.transient ? `Not uploaded: ${outcome.reason}` : `Refused: ${outcome.reason}`;
    case "queued":
      return "Uploaded: its pages are being read and filed (see Scanned piles).";
    case "done":
      return isUnmatched(outcome.submission)
        ? "Needs a student: no student without a scan was left to match it to."
        : `Matched to ${outcome.submission.student_name ?? `Script ${outcome.submission.script_number}`}`;
  }
}

const isUnmatched = (submission: UploadedScan) => submission.status === "unmatched" || !submission.has_student;
