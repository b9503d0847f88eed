"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { type KeyboardEvent, useEffect, useId, useRef, useState } from "react";
import { Button } from "@/components/ui/Button";
import { Modal } from "@/components/ui/Modal";
import { Status } from "@/components/ui/Status";
import { PdfFileField } from "@/components/ui/Field";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import "./mark-scheme.css";

interface ProposedPart {
  question_id: string;
  label: string;
  max_marks: number | null;
  existing_items: number;
  items: { text: string; points: number; already_present: boolean }[];
}

/**
 * "Mark scheme" (issue 37, item 3): paste a mark scheme (or choose its PDF), see each part's proposed
 * rubric items, accept them part by part with the keyboard (↑ ↓ to move, Enter or Space to accept or
 * leave a part, A to accept all) or all at once, and add the accepted ones to the rubric (all or nothing).
 * Items a part already has are shown and not added twice.
 */
export function MarkSchemeDialog({ templateId, open, onClose }: { templateId: string; open: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const titleId = useId();
  const [text, setText] = useState("");
  const [file, setFile] = useState<File | null>(null);
  const [parts, setParts] = useState<ProposedPart[] | null>(null);
  const [warnings, setWarnings] = useState<string[]>([]);
  const [accepted, setAccepted] = useState<Set<string>>(new Set());
  const [selected, setSelected] = useState(0);
  const [readError, setReadError] = useState<string | null>(null);
  const [reading, setReading] = useState(false);
  const listRef = useRef<HTMLOListElement>(null);
  const readText = useMutation(trpc.exam.rubric.readScheme.mutationOptions());
  const apply = useMutation(
    trpc.exam.rubric.applyScheme.mutationOptions({
      onSuccess: () => queryClient.invalidateQueries({ queryKey: trpc.exam.templates.get.queryKey({ template_id: templateId }) }),
    }),
  );

  const reset = () => {
    setParts(null);
    setWarnings([]);
    setAccepted(new Set());
    setSelected(0);
    setReadError(null);
    apply.reset();
  };
  const close = () => {
    if (apply.isPending || reading) return;
    reset();
    setText("");
    setFile(null);
    onClose();
  };

  async function read() {
    reset();
    setReading(true);
    try {
      const proposal = file ? await readPdf(templateId, file) : await readText.mutateAsync({ template_id: templateId, text });
      setParts(proposal.parts);
      setWarnings(proposal.warnings);
    } catch (failure) {
      setReadError(errorMessage(failure));
    } finally {
      setReading(false);
    }
  }

  // The proposal read: the keyboard goes to its parts.
  useEffect(() => {
    if (parts && parts.length > 0) listRef.current?.focus();
  }, [parts]);

  const toAdd = (part: ProposedPart) => part.items.filter((item) => !item.already_present);
  const acceptable = (parts ?? []).filter((part) => toAdd(part).length > 0);
  const toggle = (questionId: string) =>
    setAccepted((current) => {
      const next = new Set(current);
      if (next.has(questionId)) next.delete(questionId);
      else next.add(questionId);
      return next;
    });
  const acceptAll = () => setAccepted(new Set(acceptable.map((part) => part.question_id)));

  function onListKey(event: KeyboardEvent<HTMLOListElement>) {
    if (!parts || parts.length === 0) return;
    if (event.key === "ArrowDown" || event.key === "ArrowUp") {
      event.preventDefault();
      setSelected((index) => Math.max(0, Math.min(parts.length - 1, index + (event.key === "ArrowDown" ? 1 : -1))));
    } else if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      const part = parts[selected];
      if (part && toAdd(part).length > 0) toggle(part.question_id);
      // On to the next part not yet accepted.
      const next = parts.findIndex((candidate, index) => index > selected && toAdd(candidate).length > 0 && !accepted.has(candidate.question_id));
      if (next >= 0) setSelected(next);
    } else if (event.key.toLowerCase() === "a" && !event.ctrlKey && !event.metaKey) {
      event.preventDefault();
      acceptAll();
    }
  }

  const acceptedParts = acceptable.filter((part) => accepted.has(part.question_id));
  const itemCount = acceptedParts.reduce((sum, part) => sum + toAdd(part).length, 0);
  const busy = reading || apply.isPending;

  return (
    <Modal open={open} labelledBy={titleId} className="scheme-dialog" busy={busy} onClose={close}>
      <div className="dialog__body form-stack">
        <h2 id={titleId}>Mark scheme</h2>
        {parts === null ? (
          <>
            <p className="muted">
              Paste the mark scheme, or choose its PDF. Lines such as “M1 for …”, “A1 …”, “B2 …”, “1 mark for …” or “… (1)” under each question
              label (1, 2, 3(a), 3(b)(i) …) become rubric items worth their marks, for you to check before they are added.
            </p>
            <div className="field">
              <label className="field__label" htmlFor={`${titleId}-text`}>
                Mark scheme text
              </label>
              <textarea id={`${titleId}-text`} value={text} disabled={busy || file !== null} onChange={(event) => setText(event.currentTarget.value)} spellCheck={false} />
            </div>
            <PdfFileField id={`${titleId}-file`} label="Or its PDF" disabled={busy} onFile={setFile} />
            {readError ? <Status tone="error" title="The mark scheme was not read">{readError}</Status> : null}
          </>
        ) : (
          <>
            {warnings.length > 0 ? (
              <Status tone="warning" title="Check these">
                <ul className="scheme-warnings">
                  {warnings.map((warning) => (
                    <li key={warning}>{warning}</li>
                  ))}
                </ul>
              </Status>
            ) : null}
            {parts.length > 0 ? (
              <>
                <p className="muted" id={`${titleId}-keys`}>
                  ↑ ↓ choose a part · Enter accepts it (or leaves it) and moves on · A accepts all.
                </p>
                <ol
                  ref={listRef}
                  className="scheme-parts"
                  tabIndex={0}
                  role="listbox"
                  aria-multiselectable="true"
                  aria-label="Proposed rubric items by part"
                  aria-describedby={`${titleId}-keys`}
                  aria-activedescendant={parts[selected] ? `${titleId}-part-${selected}` : undefined}
                  onKeyDown={onListKey}
                >
                  {parts.map((part, index) => {
                    const isAccepted = accepted.has(part.question_id);
                    const sum = part.items.reduce((total, item) => total + item.points, 0);
                    return (
                      <li
                        key={part.question_id}
                        id={`${titleId}-part-${index}`}
                        role="option"
                        aria-selected={isAccepted}
                        className={["scheme-part", index === selected && "scheme-part--selected", isAccepted && "scheme-part--accepted"].filter(Boolean).join(" ")}
                        onClick={() => setSelected(index)}
                      >
                        <div className="scheme-part__head">
                          <input
                            type="checkbox"
                            tabIndex={-1}
                            checked={isAccepted}
                            disabled={toAdd(part).length === 0}
                            aria-label={`Accept ${part.label}`}
                            onChange={() => toggle(part.question_id)}
                          />
                          Question {part.label}
                          <span className="muted">
                            {sum} of {part.max_marks ?? "?"} mark{part.max_marks === 1 ? "" : "s"}
                            {part.existing_items > 0 ? ` · ${part.existing_items} item${part.existing_items === 1 ? "" : "s"} already` : ""}
                            {isAccepted ? " · accepted" : ""}
                          </span>
                        </div>
                        <ul className="scheme-part__items">
                          {part.items.map((item, itemIndex) => (
                            <li key={itemIndex} className={item.already_present ? "muted" : undefined}>
                              {item.text} — {item.points} mark{item.points === 1 ? "" : "s"}
                              {item.already_present ? " (already in the rubric)" : ""}
                            </li>
                          ))}
                        </ul>
                      </li>
                    );
                  })}
                </ol>
              </>
            ) : null}
            {apply.isError ? <Status tone="error" title="Nothing was added">{errorMessage(apply.error)}</Status> : null}
            {apply.isSuccess ? (
              <Status tone="success" title="Added to the rubric">
                {apply.data.created.length} item{apply.data.created.length === 1 ? "" : "s"} added
                {apply.data.already_present > 0 ? `; ${apply.data.already_present} were there already` : ""}.
              </Status>
            ) : null}
          </>
        )}
      </div>
      <div className="dialog__actions">
        <Button variant="secondary" onClick={close} disabled={busy}>
          {apply.isSuccess ? "Close" : "Cancel"}
        </Button>
        {parts === null ? (
          <Button onClick={() => void read()} loading={reading} loadingLabel="Reading…" disabled={!file && text.trim().length === 0}>
            Read the mark scheme
          </Button>
        ) : apply.isSuccess ? null : (
          <>
            <Button variant="secondary" onClick={reset} disabled={busy}>
              Back
            </Button>
            <Button variant="secondary" onClick={acceptAll} disabled={busy || acceptable.length === 0}>
              Accept all
            </Button>
            <Button
              onClick={() =>
                apply.mutate({
                  template_id: templateId,
                  body: { parts: acceptedParts.map((part) => ({ question_id: part.question_id, items: toAdd(part).map(({ text: itemText, points }) => ({ text: itemText, points })) })) },
                })
              }
              loading={apply.isPending}
              loadingLabel="Adding…"
              disabled={itemCount === 0}
            >
              Add {itemCount} item{itemCount === 1 ? "" : "s"} to the rubric
            </Button>
          </>
        )}
      </div>
    </Modal>
  );
}

/** The scheme's PDF read on the server (POST …/mark-scheme/read-pdf, multipart), as the text's proposal. */
async function readPdf(templateId: string, file: File): Promise<{ parts: ProposedPart[]; warnings: string[] }> {
  const form = new FormData();
  form.append("file", file);
  const reply = await fetch(`/api/exam/templates/${encodeURIComponent(templateId)}/mark-scheme/read-pdf`, { method: "POST", body: form, credentials: "same-origin" });
  const answer = (await reply.json().catch(() => null)) as { parts: ProposedPart[]; warnings: string[]; detail?: string } | null;
  if (!reply.ok || !answer) throw new Error(answer?.detail ?? "The mark scheme's PDF could not be read: try again");
  return answer;
}
