"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Button, buttonClassName } from "@/components/ui/Button";
import { Card } from "@/components/ui/Card";
import { Status } from "@/components/ui/Status";
import { errorMessage } from "@/lib/trpc/errors";
import { useTRPC } from "@/components/trpc/client";
import { plural } from "@/lib/text/plural";
import { ImportPreview } from "./ImportPreview";
import { RememberedColumns } from "./RememberedColumns";
import { type Mapping, MappingForm } from "./MappingForm";
import { type EncodedFile, encodeFiles } from "./roster-files";
import type { RosterImportResult } from "./types";

type Step =
  | { name: "pick" }
  | { name: "map"; files: EncodedFile[]; result: RosterImportResult; mapping: Mapping }
  | { name: "preview"; files: EncodedFile[]; result: RosterImportResult; mapping: Mapping | null }
  | { name: "done"; result: RosterImportResult };

/** Roster import: pick a file → choose its columns (a CSV) → preview → import → the result. */
export function RosterImport() {
  const trpc = useTRPC();
  const preview = useMutation(trpc.rosterImport.preview.mutationOptions());
  const queryClient = useQueryClient();
  // An import may change any of the school's people, classes and enrollments: every list read before it is stale.
  const commit = useMutation(trpc.rosterImport.commit.mutationOptions({ onSuccess: () => queryClient.invalidateQueries() }));
  const [step, setStep] = useState<Step>({ name: "pick" });
  const [error, setError] = useState<string | null>(null);
  const busy = preview.isPending || commit.isPending;

  const restart = () => {
    setError(null);
    setStep({ name: "pick" });
  };

  async function pick(list: FileList | null) {
    setError(null);
    if (!list || list.length === 0) return;
    try {
      const files = await encodeFiles([...list]);
      const result = await preview.mutateAsync({ files });
      // The columns chosen for this header last time: straight to the preview, which says so.
      if (result.format === "csv" && result.mapping && result.mappingRemembered && result.mappingProblems.length === 0) {
        setStep({ name: "preview", files, result, mapping: result.mapping });
      } else if (result.format === "csv" && result.mapping) setStep({ name: "map", files, result, mapping: result.mapping });
      else setStep({ name: "preview", files, result, mapping: null });
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }

  async function previewWith(files: EncodedFile[], mapping: Mapping) {
    setError(null);
    try {
      const result = await preview.mutateAsync({ files, mapping });
      if (result.mappingProblems.length > 0) setStep({ name: "map", files, result, mapping });
      else setStep({ name: "preview", files, result, mapping });
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }

  async function apply(files: EncodedFile[], mapping: Mapping | null) {
    setError(null);
    try {
      setStep({ name: "done", result: await commit.mutateAsync({ files, mapping }) });
    } catch (failure) {
      setError(errorMessage(failure));
    }
  }

  const errorStatus = error ? (
    <Status tone="error" title="The file could not be imported">
      {error}
    </Status>
  ) : null;

  if (step.name === "pick") {
    return (
      <Card title="1. Choose the file" id="import-pick" description="A CSV exported from your school's information system, or a OneRoster 1.1 bundle: its zip, or users.csv, classes.csv and enrollments.csv together.">
        <div className="stack">
          <div className="field">
            <label className="field__label" htmlFor="roster-file">
              Roster file
            </label>
            <input
              id="roster-file"
              className="file-input"
              type="file"
              multiple
              accept=".csv,.zip,.txt,text/csv,application/zip"
              disabled={busy}
              aria-describedby="roster-file-hint"
              onChange={(event) => void pick(event.target.files)}
            />
            <p className="field__hint" id="roster-file-hint">
              Up to 5 MB. Nothing is written until you press Import on the preview.
            </p>
          </div>
          {busy ? <p role="status">Reading the file…</p> : null}
          {errorStatus}
        </div>
      </Card>
    );
  }

  if (step.name === "map") {
    return (
      <Card title="2. Match the columns" id="import-map">
        <MappingForm
          result={step.result}
          mapping={step.mapping}
          busy={busy}
          onChange={(mapping) => setStep({ ...step, mapping })}
          onPreview={() => void previewWith(step.files, step.mapping)}
          onBack={restart}
        />
        {errorStatus}
      </Card>
    );
  }

  if (step.name === "preview") {
    const { counts } = step.result;
    const changes = counts.create + counts.update;
    const anything = changes + counts.classesCreate + counts.classesUpdate + counts.enrollmentsCreate > 0;
    const label = changes > 0 ? `Import ${changes} ${changes === 1 ? "person" : "people"}` : "Import the class changes";
    return (
      <Card title="3. Check the preview" id="import-preview">
        <div className="stack">
          {step.result.mappingRemembered ? <RememberedColumns savedAt={step.result.mappingRemembered.savedAt} /> : null}
          <ImportPreview result={step.result} />
          {anything ? null : (
            <Status tone="success" role="status">
              Everything in this file is already in Markbook: there is nothing to import.
            </Status>
          )}
          {errorStatus}
          <div className="cluster">
            {anything ? (
              <Button onClick={() => void apply(step.files, step.mapping)} disabled={busy}>
                {commit.isPending ? "Importing…" : label}
              </Button>
            ) : null}
            {step.mapping ? (
              <Button variant="secondary" onClick={() => setStep({ name: "map", files: step.files, result: step.result, mapping: step.mapping! })}>
                Change the columns
              </Button>
            ) : null}
            <Button variant="secondary" onClick={restart}>
              Choose another file
            </Button>
          </div>
        </div>
      </Card>
    );
  }

  const { counts } = step.result;
  return (
    <Card title="Imported" id="import-done">
      <div className="stack">
        <Status tone="success" role="status">
          {counts.create} created, {counts.update} updated, {counts.unchanged} unchanged, {counts.skip} skipped;{" "}
          {plural(counts.classesCreate, "new class", "new classes")} and {plural(counts.enrollmentsCreate, "student")} added to classes.
        </Status>
        <ImportPreview result={step.result} />
        <div className="cluster">
          <Link href="/people" className={buttonClassName({ variant: "primary" })}>
            See the people
          </Link>
          <Link href="/classes" className={buttonClassName({ variant: "secondary" })}>
            See the classes
          </Link>
          <Button variant="secondary" onClick={restart}>
            Import another file
          </Button>
        </div>
      </div>
    </Card>
  );
}
