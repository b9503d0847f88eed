"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useRef, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/Button";
import { PdfFileField, SelectField, TextField } from "@/components/ui/Field";
import { Modal } from "@/components/ui/Modal";
import { Status } from "@/components/ui/Status";
import { formatBytes } from "@/components/ui/upload";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import { UploadProgress } from "./UploadProgress";
import { uploadPdf } from "./upload-pdf";

type Source = "upload" | "catalogue";

/** What a template from this catalogue paper starts with. */
function catalogueHint(paper: { question_count: number; total_marks: number }): string {
  if (paper.question_count === 0) return "It comes without questions: you add them in the editor.";
  const questions = `${paper.question_count} question${paper.question_count === 1 ? "" : "s"}`;
  return `It comes ready to mark: ${questions}, ${paper.total_marks} mark${paper.total_marks === 1 ? "" : "s"}, mark schemes and answer areas.`;
}

const titleFromFileName = (name: string) => name.replace(/\.pdf$/i, "").replace(/[_]+/g, " ").trim();

/**
 * "New template": from an uploaded PDF (with upload progress) or a catalogue paper. Creates the
 * template and opens its editor.
 */
export function NewTemplateDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const titleId = useId();
  const catalogue = useQuery({ ...trpc.exam.catalogue.list.queryOptions(), enabled: open });
  const papers = catalogue.data?.papers.filter((paper) => paper.source_file_id) ?? [];

  const [source, setSource] = useState<Source>("upload");
  const [file, setFile] = useState<File | null>(null);
  const [paperId, setPaperId] = useState("");
  const [title, setTitle] = useState("");
  const [subject, setSubject] = useState("");
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const abort = useRef<AbortController | null>(null);
  const create = useMutation(trpc.exam.templates.create.mutationOptions());
  const chosenPaper = papers.find((paper) => paper.id === paperId) ?? null;

  function reset() {
    setFile(null);
    setPaperId("");
    setTitle("");
    setSubject("");
    setProgress(null);
    setError(null);
    setBusy(false);
  }

  function close() {
    abort.current?.abort();
    reset();
    onClose();
  }

  function choosePaper(id: string) {
    setPaperId(id);
    const paper = papers.find((p) => p.id === id);
    if (paper) {
      setTitle((current) => current || paper.title);
      setSubject((current) => current || paper.subject || "");
    }
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    setError(null);
    if (source === "upload" && !file) return setError("Choose a PDF of the exam paper.");
    if (source === "catalogue" && !paperId) return setError("Choose a paper from the catalogue.");
    if (!title.trim()) return setError("Give the template a title.");
    setBusy(true);
    try {
      let sourceFields: { source_file_id: string; page_count: number | null; exam_id?: string };
      if (source === "upload") {
        abort.current = new AbortController();
        setProgress(0);
        const uploaded = await uploadPdf(file!, setProgress, abort.current.signal);
        sourceFields = { source_file_id: uploaded.id, page_count: uploaded.page_count };
      } else {
        const paper = papers.find((p) => p.id === paperId)!;
        sourceFields = { source_file_id: paper.source_file_id!, page_count: paper.page_count, exam_id: paper.id };
      }
      const template = await create.mutateAsync({ title: title.trim(), subject: subject.trim() || null, ...sourceFields });
      router.push(`/templates/${template.id}`);
    } catch (failure) {
      setError(errorMessage(failure));
      setProgress(null); // a refused file is not "Uploaded 100%"
      setBusy(false);
    }
  }

  return (
    <Modal open={open} labelledBy={titleId} className="new-template" onClose={close}>
      <form onSubmit={(event) => void submit(event)} noValidate>
        <div className="dialog__body form-stack">
          <h2 id={titleId}>New template</h2>
          <fieldset className="segmented" disabled={busy}>
            <legend className="field__label">Start from</legend>
            <label className="segmented__option">
              <input type="radio" name="source" value="upload" checked={source === "upload"} onChange={() => setSource("upload")} />
              Upload a PDF
            </label>
            <label className="segmented__option">
              <input
                type="radio"
                name="source"
                value="catalogue"
                checked={source === "catalogue"}
                onChange={() => setSource("catalogue")}
                disabled={papers.length === 0}
              />
              Catalogue paper{catalogue.isSuccess && papers.length === 0 ? " (none available)" : ""}
            </label>
          </fieldset>

          {source === "upload" ? (
            <PdfFileField
              id={`${titleId}-file`}
              label="Exam paper (PDF)"
              disabled={busy}
              hint={file ? `${file.name}, ${formatBytes(file.size)}` : "The question paper as a PDF, up to 50 MB."}
              onFile={(chosen) => {
                setFile(chosen);
                if (chosen) setTitle((current) => current || titleFromFileName(chosen.name));
              }}
            />
          ) : (
            <SelectField
              label="Paper from the catalogue"
              hint={chosenPaper ? catalogueHint(chosenPaper) : undefined}
              value={paperId}
              onChange={(event) => choosePaper(event.currentTarget.value)}
              disabled={busy}
              options={[{ value: "", label: "Choose a paper…" }, ...papers.map((p) => ({ value: p.id, label: `${p.title} (${p.exam_code})` }))]}
            />
          )}

          <TextField label="Title" value={title} onChange={(event) => setTitle(event.currentTarget.value)} disabled={busy} maxLength={300} required />
          <TextField label="Subject" hint="Optional, used to filter the list." value={subject} onChange={(event) => setSubject(event.currentTarget.value)} disabled={busy} maxLength={200} />

          {progress !== null && source === "upload" ? <UploadProgress fraction={progress} label={file?.name ?? "PDF"} /> : null}
          {error ? <Status tone="error" title="The template was not created">{error}</Status> : null}
        </div>
        <div className="dialog__actions">
          <Button variant="secondary" onClick={close}>
            Cancel
          </Button>
          <Button type="submit" loading={busy} loadingLabel={progress !== null && progress < 1 ? "Uploading…" : "Creating…"}>
            Create and open
          </Button>
        </div>
      </form>
    </Modal>
  );
}
