"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { TextField } from "@/components/ui/Field";
import { FormDialog } from "@/components/ui/FormDialog";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Loading } from "@/components/ui/Loading";
import { Status } from "@/components/ui/Status";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";
import { plural } from "@/lib/text/plural";
import { downloadPrintedScripts } from "./download-scripts";

const DEFAULT_SPARE_COPIES = 2;
const MAX_SPARE_COPIES = 100;

interface PrintScriptsDialogProps {
  batchId: string;
  open: boolean;
  onClose: () => void;
  /** The PDF is downloading: what to tell the teacher on the batch page. */
  onPrinted: (summary: string) => void;
  /** An anonymous batch: its scripts are printed without names, and handed out by number. */
  anonymous?: boolean;
}

/** Spare copies as typed: a whole number from 0 to 100, or the sentence saying what is wrong. */
function parseSpareCopies(value: string): number | string {
  const trimmed = value.trim();
  const count = Number(trimmed);
  if (trimmed === "" || !/^\d+$/.test(trimmed) || count > MAX_SPARE_COPIES) return `Enter a whole number from 0 to ${MAX_SPARE_COPIES}`;
  return count;
}

/**
 * "Print scripts": how many students and pages, the spare copies to add, which pages' codes have to
 * cover part of an answer space, and "Download PDF". Every page of the PDF carries a QR code that files
 * it into its script when the pile is scanned.
 */
export function PrintScriptsDialog({ batchId, open, onClose, onPrinted, anonymous = false }: PrintScriptsDialogProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const preview = useQuery({ ...trpc.exam.intake.printPreview.queryOptions({ batch_id: batchId }), enabled: open });
  const [spares, setSpares] = useState(String(DEFAULT_SPARE_COPIES));
  const [spareProblem, setSpareProblem] = useState<string | null>(null);
  const sparesField = useRef<HTMLInputElement>(null);
  const loaded = preview.isSuccess;
  // The dialog focuses its first field on opening, before the facts (and the field) have loaded.
  useEffect(() => {
    if (open && loaded) sparesField.current?.focus();
  }, [open, loaded]);
  const download = useMutation({ mutationFn: (spareCopies: number) => downloadPrintedScripts(batchId, { spare_copies: spareCopies }) });

  function close() {
    download.reset();
    setSpares(String(DEFAULT_SPARE_COPIES));
    setSpareProblem(null);
    onClose();
  }

  function submit() {
    const spareCopies = parseSpareCopies(spares);
    if (typeof spareCopies === "string") {
      setSpareProblem(spareCopies);
      return;
    }
    setSpareProblem(null);
    download.mutate(spareCopies, {
      onSuccess: ({ fileName }) => {
        const students = preview.data ? plural(preview.data.students, "student's script", "students' scripts") : "the scripts";
        onPrinted(`${fileName} is downloading: ${students} and ${plural(spareCopies, "spare copy", "spare copies")}.`);
        void queryClient.invalidateQueries({ queryKey: trpc.exam.intake.printPreview.queryKey({ batch_id: batchId }) });
        // The batch is printed now: its scans are piles read by their codes, the upload's default from here on.
        void queryClient.invalidateQueries({ queryKey: trpc.exam.intake.status.queryKey({ batch_id: batchId }) });
        close();
      },
    });
  }

  const facts = preview.data;
  const spareCount = parseSpareCopies(spares);
  const scripts = facts && typeof spareCount === "number" ? facts.students + spareCount : null;
  return (
    <FormDialog
      open={open}
      title="Print scripts"
      description="One PDF with every student's script. Each page carries a QR code, so the scanned pile is sorted into scripts by itself."
      submitLabel="Download PDF"
      busyLabel="Making the PDF…"
      busy={download.isPending}
      onSubmit={submit}
      onClose={close}
      canSubmit={!preview.isPending && !facts?.cannot_print}
    >
      {preview.isPending ? (
        <Loading>Reading the paper…</Loading>
      ) : preview.isError ? (
        <LoadFailed what="The batch's paper" error={preview.error} onRetry={() => preview.refetch()} />
      ) : (
        <>
          {facts!.cannot_print ? (
            <Status tone="error" title="These scripts cannot be printed">
              {facts!.cannot_print}
            </Status>
          ) : null}
          <dl className="details">
            <dt>Students</dt>
            <dd>{facts!.students}</dd>
            <dt>Pages per script</dt>
            <dd>{facts!.pages_per_script ?? "Unknown"}</dd>
            <dt>Spare copies printed before</dt>
            <dd>{facts!.spare_copies_printed}</dd>
          </dl>
          {facts!.cannot_print ? null : (
            <>
              <TextField
                ref={sparesField}
                label="Spare copies"
                type="number"
                inputMode="numeric"
                min={0}
                max={MAX_SPARE_COPIES}
                step={1}
                value={spares}
                onChange={(event) => setSpares(event.currentTarget.value)}
                error={spareProblem}
                hint="Printed with a code but no name, for a student who joins late or spoils a script. You say whose they are after scanning."
              />
              {scripts !== null && facts!.pages_per_script ? (
                <p className="muted">
                  The PDF will have {plural(scripts, "script")}, {plural(scripts * facts!.pages_per_script, "page")}. Print it single-sided.
                </p>
              ) : null}
            </>
          )}
          {anonymous && !facts!.cannot_print ? <HandOutList batchId={batchId} /> : null}
          {facts!.warnings.length > 0 ? (
            <Status tone="warning" title={`The code covers part of an answer space on ${plural(facts!.warnings.length, "page")}`}>
              <p>No corner of these pages is free. Students should not write under the code.</p>
              <ul>
                {facts!.warnings.map((warning) => (
                  <li key={warning.page}>
                    Page {warning.page}: {[...warning.questions.map((label) => `question ${label}`), ...(warning.name_box ? ["the name box"] : [])].join(", ")}
                  </li>
                ))}
              </ul>
            </Status>
          ) : null}
          {download.isError ? (
            <Status tone="error" title="The PDF was not made">
              {errorMessage(download.error)}
            </Status>
          ) : null}
        </>
      )}
    </FormDialog>
  );
}

/**
 * An anonymous batch's scripts carry no name (issue 32): the owner, the only one who prints, hands each
 * student their script by its number, from the names revealed to them (as on the results page).
 */
function HandOutList({ batchId }: { batchId: string }) {
  const trpc = useTRPC();
  const results = useQuery(trpc.exam.batches.results.queryOptions({ batch_id: batchId, reveal_names: true }));
  const students = (results.data?.results ?? []).filter((row) => row.student_name !== null).sort((a, b) => a.script_number - b.script_number);
  return (
    <Status tone="info" title="Anonymous marking: no names are printed">
      <p>Each page says its script number, page and code only. Hand each student the script with their number.</p>
      {results.isError ? (
        <LoadFailed what="The list of script numbers" error={results.error} onRetry={() => results.refetch()} />
      ) : results.isPending ? (
        <Loading>Loading the script numbers…</Loading>
      ) : students.length > 0 ? (
        <details>
          <summary>Who gets which script ({plural(students.length, "student")})</summary>
          <ul>
            {students.map((row) => (
              <li key={row.submission_id}>
                Script {row.script_number}: {row.student_name}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </Status>
  );
}
