"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useId, useState } from "react";
import { Button } from "@/components/ui/Button";
import { SelectField, TextField } from "@/components/ui/Field";
import { Status } from "@/components/ui/Status";
import { useTRPC } from "@/components/trpc/client";
import { type EditorDocument, type TemplateStatus, totalMarks } from "./editor-state";
import { GraphProjectionNotice } from "./GraphProjectionNotice";
import { SaveStatus, type SaveState } from "./SaveStatus";
import { TemplateStatusBadge } from "./template-status";
import { errorMessage } from "@/lib/trpc/errors";
import { CopyFromPaperDialog } from "./CopyFromPaperDialog";
import { MarkSchemeDialog } from "./MarkSchemeDialog";

const statusOptions = [
  { value: "draft", label: "Draft: still being prepared" },
  { value: "ready", label: "Ready: batches can use it" },
  { value: "archived", label: "Archived: hidden from the list" },
];

interface EditorHeaderProps {
  templateId: string;
  doc: EditorDocument;
  examCode: string | null;
  readOnly: boolean;
  dirty: boolean;
  saveState: SaveState;
  onChange: (patch: Partial<Pick<EditorDocument, "title" | "subject" | "status">>) => void;
  onSave: () => void;
}

/**
 * Title, details, status, the save state and button, "Update curriculum links" (the graph projection run
 * now: it links the saved paper's questions to the specification points they assess; every save queues
 * it anyway), and (to its owner) a failed update of those links.
 */
export function EditorHeader({ templateId, doc, examCode, readOnly, dirty, saveState, onChange, onSave }: EditorHeaderProps) {
  const trpc = useTRPC();
  const sync = useMutation(trpc.graph.syncTemplate.mutationOptions());
  const leaves = doc.questions.filter((q) => !q.is_container).length;
  const total = totalMarks(doc.questions);
  // Tablets fold the title, subject and status fields away (the title and status show above); wide screens always show them.
  const [detailsOpen, setDetailsOpen] = useState(false);
  const detailsId = useId();
  const [dialog, setDialog] = useState<"scheme" | "copy" | null>(null);

  return (
    <header className="editor__header">
      <div className="editor__title-row">
        <div>
          <Link href="/templates" className="back-link">
            ← Templates
          </Link>
          <h1 className="editor__title">
            {doc.title || "Untitled template"} <TemplateStatusBadge status={doc.status} />
          </h1>
          <p className="editor__summary muted">
            {doc.page_count ?? "?"} page{doc.page_count === 1 ? "" : "s"} · {leaves} markable question{leaves === 1 ? "" : "s"} · {total} mark{total === 1 ? "" : "s"} ·{" "}
            {doc.areas.length} area{doc.areas.length === 1 ? "" : "s"}
            {examCode ? ` · ${examCode}` : ""}
          </p>
        </div>
        <div className="editor__actions">
          <SaveStatus state={saveState} />
          <Button onClick={onSave} disabled={readOnly || (!dirty && saveState.kind !== "error")} loading={saveState.kind === "saving"} loadingLabel="Saving…" aria-keyshortcuts="Control+S">
            Save
          </Button>
          <Button
            variant="secondary"
            disabled={readOnly || dirty}
            title={dirty ? "Save first: the links are made from the saved template" : "Links the questions to the specification points they assess, now (every save does it too)"}
            loading={sync.isPending}
            loadingLabel="Updating links…"
            onClick={() => sync.mutate({ templateId })}
          >
            Update curriculum links
          </Button>
          <Button variant="secondary" disabled={readOnly || dirty} title={dirty ? "Save first: the items go to the saved questions" : undefined} onClick={() => setDialog("scheme")}>
            Mark scheme
          </Button>
          <Button variant="secondary" disabled={readOnly || dirty} title={dirty ? "Save first: the copy goes into the saved template" : undefined} onClick={() => setDialog("copy")}>
            Copy from another paper
          </Button>
          <Button variant="secondary" className="editor__details-toggle" aria-expanded={detailsOpen} aria-controls={detailsId} onClick={() => setDetailsOpen((open) => !open)}>
            Edit details
          </Button>
        </div>
      </div>
      <div className={`editor__details${detailsOpen ? " editor__details--open" : ""}`} id={detailsId}>
        <TextField label="Title" value={doc.title} maxLength={300} disabled={readOnly} onChange={(e) => onChange({ title: e.currentTarget.value })} />
        <TextField label="Subject" value={doc.subject ?? ""} maxLength={200} disabled={readOnly} fieldClassName="field--narrow" onChange={(e) => onChange({ subject: e.currentTarget.value || null })} />
        <SelectField label="Status" value={doc.status} options={statusOptions} disabled={readOnly} onChange={(e) => onChange({ status: e.currentTarget.value as TemplateStatus })} />
      </div>
      {sync.isSuccess ? (
        <Status tone="success" title="Curriculum links updated">
          Paper {sync.data.exam_code}: {sync.data.questions} question{sync.data.questions === 1 ? "" : "s"}, {sync.data.parts} part{sync.data.parts === 1 ? "" : "s"},{" "}
          {sync.data.regions} answer area{sync.data.regions === 1 ? "" : "s"}, {sync.data.assesses} specification link{sync.data.assesses === 1 ? "" : "s"}
          {sync.data.spec_linked ? "; linked to its specification." : "; no specification linked."}
        </Status>
      ) : null}
      {sync.isError ? <Status tone="error" title="The curriculum links were not updated">{errorMessage(sync.error)}</Status> : null}
      {readOnly ? null : <GraphProjectionNotice templateId={templateId} />}
      {/* Mounted while open only: each starts afresh, and their fields ("Mark scheme text") stay out of the editor's own. */}
      {dialog === "scheme" ? <MarkSchemeDialog templateId={templateId} open onClose={() => setDialog(null)} /> : null}
      {/* The copy changes the saved questions: the editor opens again from them. */}
      {dialog === "copy" ? <CopyFromPaperDialog templateId={templateId} open onClose={() => setDialog(null)} onCopied={() => window.location.reload()} /> : null}
    </header>
  );
}
