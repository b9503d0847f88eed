"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { Button } from "@/components/ui/Button";
import { SelectField, TextField } from "@/components/ui/Field";
import { Modal } from "@/components/ui/Modal";
import { Status } from "@/components/ui/Status";
import { useTRPC } from "@/components/trpc/client";
import { errorMessage } from "@/lib/trpc/errors";

/**
 * "New batch": a ready template and a class; says how many students will get a submission before it
 * is created, then opens the batch.
 */
export function NewBatchDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const titleId = useId();
  const templates = useQuery({ ...trpc.exam.templates.list.queryOptions({ status: "ready" }), enabled: open });
  const teaching = useQuery({ ...trpc.classes.teaching.queryOptions(), enabled: open });
  // null until the teacher picks: the first ready template and the first class are the defaults, and
  // "" is an explicit "No class" that stays chosen.
  const [pickedTemplateId, setTemplateId] = useState<string | null>(null);
  const [pickedClassId, setClassId] = useState<string | null>(null);
  const [title, setTitle] = useState("");
  const [anonymous, setAnonymous] = useState(false);
  const anonymousHintId = useId();
  const readyTemplates = templates.data?.templates ?? [];
  const classes = teaching.data?.classes ?? [];
  const templateId = pickedTemplateId ?? readyTemplates[0]?.id ?? "";
  const classId = pickedClassId ?? classes[0]?.id ?? "";
  const students = useQuery({ ...trpc.classes.students.queryOptions({ classId }), enabled: open && Boolean(classId) });
  const create = useMutation(trpc.exam.batches.create.mutationOptions());

  function close() {
    create.reset();
    setTitle("");
    setAnonymous(false);
    onClose();
  }

  async function submit(event: FormEvent) {
    event.preventDefault();
    if (!templateId) return;
    const batch = await create.mutateAsync({ template_id: templateId, class_id: classId || null, title: title.trim() || null, anonymous }).catch(() => null);
    if (!batch) return;
    await queryClient.invalidateQueries({ queryKey: trpc.exam.batches.overview.queryKey() });
    router.push(`/batches/${batch.id}`);
  }

  const studentCount = students.data?.students.length;
  return (
    <Modal open={open} labelledBy={titleId} className="dialog--wide" busy={create.isPending} onClose={close}>
      <form onSubmit={(event) => void submit(event)}>
        <div className="dialog__body form-stack">
          <h2 id={titleId}>New marking batch</h2>
          {templates.isSuccess && readyTemplates.length === 0 ? (
            <Status tone="warning" title="No ready template">
              A batch marks one template. Open Templates, finish a paper and mark it ready, then come back.
            </Status>
          ) : null}
          <SelectField
            label="Template"
            value={templateId}
            onChange={(e) => setTemplateId(e.currentTarget.value)}
            options={
              templates.isPending
                ? [{ value: "", label: "Loading templates…" }]
                : readyTemplates.map((t) => ({ value: t.id, label: t.title }))
            }
            hint="Only ready templates can be marked."
            required
          />
          <SelectField
            label="Class"
            value={classId}
            onChange={(e) => setClassId(e.currentTarget.value)}
            options={[
              ...classes.map((c) => ({ value: c.id, label: c.subject && !c.name.includes(c.subject) ? `${c.name} (${c.subject})` : c.name })),
              { value: "", label: "No class (scans only, matched by hand)" },
            ]}
            hint={
              classId
                ? students.isPending
                  ? "Counting students…"
                  : studentCount !== undefined
                    ? `${studentCount} student${studentCount === 1 ? "" : "s"} will get a submission, so nobody is missed in the results.`
                    : undefined
                : "Without a class every scan arrives unmatched."
            }
          />
          <TextField label="Title (optional)" value={title} onChange={(e) => setTitle(e.currentTarget.value)} placeholder="Defaults to the template's title" maxLength={300} />
          <div>
            <label className="checkbox">
              <input type="checkbox" checked={anonymous} onChange={(e) => setAnonymous(e.currentTarget.checked)} aria-describedby={anonymousHintId} />
              Anonymous marking
            </label>
            <p className="field__hint" id={anonymousHintId}>
              Markers see &ldquo;Script 17&rdquo;, never a name, and the name box on the scans is blurred. Only you can reveal the names, on the results page.
            </p>
          </div>
          {create.isError ? (
            <Status tone="error" title="The batch was not created">
              {errorMessage(create.error)}
            </Status>
          ) : null}
        </div>
        <div className="dialog__actions">
          <Button variant="secondary" onClick={close} disabled={create.isPending}>
            Cancel
          </Button>
          <Button type="submit" loading={create.isPending} loadingLabel="Creating…" disabled={!templateId}>
            Create batch
          </Button>
        </div>
      </form>
    </Modal>
  );
}
