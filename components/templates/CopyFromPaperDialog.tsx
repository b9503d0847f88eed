"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useId, useState } from "react";
import { Button } from "@/components/ui/Button";
import { SelectField } from "@/components/ui/Field";
import { Modal } from "@/components/ui/Modal";
import { Status } from "@/components/ui/Status";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import "./mark-scheme.css";

/**
 * "Copy from another paper" (issue 37, item 4): choose another template of the school (last year's
 * paper of the same specification), see its questions matched to this one's by label, and copy the
 * matched parts' maximum marks, answer types, mark schemes and rubric items, all or nothing. Unmatched
 * questions on either side and every answer area stay as they are; items a part already has are not
 * added twice. Closed after a copy, the editor opens again from the saved template.
 */
export function CopyFromPaperDialog({ templateId, open, onClose, onCopied }: { templateId: string; open: boolean; onClose: () => void; onCopied: () => void }) {
  const trpc = useTRPC();
  const titleId = useId();
  const [sourceId, setSourceId] = useState("");
  const templates = useQuery({ ...trpc.exam.templates.list.queryOptions(), enabled: open });
  const others = (templates.data?.templates ?? []).filter((template) => template.id !== templateId);
  const preview = useQuery({ ...trpc.exam.templates.previewCopy.queryOptions({ template_id: templateId, source_template_id: sourceId }), enabled: open && sourceId !== "" });
  const copy = useMutation(trpc.exam.templates.copyFrom.mutationOptions());
  const close = () => {
    if (copy.isPending) return;
    if (copy.isSuccess) onCopied();
    setSourceId("");
    copy.reset();
    onClose();
  };
  const plan = preview.data;
  const copied = plan?.matches.filter((match) => match.copied) ?? [];

  return (
    <Modal open={open} labelledBy={titleId} className="scheme-dialog" busy={copy.isPending} onClose={close}>
      <div className="dialog__body form-stack">
        <h2 id={titleId}>Copy from another paper</h2>
        <p className="muted">
          The questions of the paper you choose are matched to this one’s by label. Matched parts take its maximum marks, answer types, mark
          schemes and rubric items; nothing else changes, and answer areas stay as they are.
        </p>
        <SelectField
          label="Copy from"
          value={sourceId}
          disabled={copy.isPending}
          onChange={(event) => {
            setSourceId(event.currentTarget.value);
            copy.reset();
          }}
          options={[{ value: "", label: templates.isPending ? "Loading templates…" : "Choose a template…" }, ...others.map((template) => ({ value: template.id, label: template.title }))]}
        />
        {preview.isError ? <Status tone="error" title="The papers could not be matched">{errorMessage(preview.error)}</Status> : null}
        {plan ? (
          <>
            {plan.matches.length > 0 ? (
              <table className="copy-matches">
                <caption className="visually-hidden">Questions matched by label</caption>
                <thead>
                  <tr>
                    <th scope="col">Question</th>
                    <th scope="col">Marks (theirs → this paper’s)</th>
                    <th scope="col">Rubric items to add</th>
                  </tr>
                </thead>
                <tbody>
                  {plan.matches.map((match) => (
                    <tr key={match.target_question_id}>
                      <th scope="row">{match.label}</th>
                      <td>
                        {match.source_max_marks ?? "–"} → {match.target_max_marks ?? "–"}
                      </td>
                      <td>
                        {match.copied ? match.items_to_add : "not copied"}
                        {match.items_already > 0 ? ` (${match.items_already} already there)` : ""}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            ) : null}
            {plan.source_only.length > 0 ? <p>Only on the other paper, not copied: {plan.source_only.join(", ")}.</p> : null}
            {plan.target_only.length > 0 ? <p>Only on this paper, left as they are: {plan.target_only.join(", ")}.</p> : null}
            {plan.warnings.length > 0 ? (
              <Status tone="warning" title="Check these">
                <ul className="scheme-warnings">
                  {plan.warnings.map((warning) => (
                    <li key={warning}>{warning}</li>
                  ))}
                </ul>
              </Status>
            ) : null}
          </>
        ) : null}
        {copy.isError ? <Status tone="error" title="Nothing was copied">{errorMessage(copy.error)}</Status> : null}
        {copy.isSuccess ? (
          <Status tone="success" title="Copied">
            {copy.data.questions_changed} question{copy.data.questions_changed === 1 ? "" : "s"} changed, {copy.data.items_created} rubric item
            {copy.data.items_created === 1 ? "" : "s"} added.
          </Status>
        ) : null}
      </div>
      <div className="dialog__actions">
        <Button variant="secondary" onClick={close} disabled={copy.isPending}>
          {copy.isSuccess ? "Close" : "Cancel"}
        </Button>
        {copy.isSuccess ? null : (
          <Button
            onClick={() => copy.mutate({ template_id: templateId, source_template_id: sourceId })}
            loading={copy.isPending}
            loadingLabel="Copying…"
            disabled={!plan || copied.length === 0}
          >
            Copy {copied.length} matched question{copied.length === 1 ? "" : "s"}
          </Button>
        )}
      </div>
    </Modal>
  );
}
