"use client";

import { useQueryClient } from "@tanstack/react-query";
import dynamic from "next/dynamic";
import type { ComponentProps } from "react";
import type { RubricEditor as RubricEditorComponent } from "@/components/rubric/RubricEditor";
import { Button } from "@/components/ui/Button";
import { Loading } from "@/components/ui/Loading";
import { Modal } from "@/components/ui/Modal";
import { useTRPC } from "@/components/trpc/client";

// Only a template's owner opens the rubric editor here: its code loads when the dialog first opens.
const RubricEditor = dynamic(() => import("@/components/rubric/RubricEditor").then((module) => module.RubricEditor), {
  ssr: false,
  loading: () => <Loading>Opening the rubric…</Loading>,
});

/**
 * The template owner's rubric editor for the question on screen, in a dialog. Its edits are saved at
 * once; on closing, the script's marks and the queue are read again (marks re-scored by the edits come
 * back with them).
 */
export function RubricDialog({
  open,
  onClose,
  batchId,
  templateId,
  question,
  items,
}: {
  open: boolean;
  onClose: () => void;
  batchId: string;
  templateId: string;
  question: { id: string; label: string; max_marks: number | null };
  items: ComponentProps<typeof RubricEditorComponent>["items"];
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const close = () => {
    onClose();
    void queryClient.invalidateQueries({ queryKey: trpc.exam.marks.forSubmission.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.exam.batches.queue.queryKey({ batch_id: batchId }) });
  };
  return (
    <Modal open={open} labelledBy="rubric-dialog-heading" className="dialog--wide" onClose={close}>
      <div className="dialog__body">
        <h2 id="rubric-dialog-heading">Rubric of question {question.label}</h2>
        <p className="muted">Changes are saved at once. New points re-score every mark made of the item, in every open batch of this paper.</p>
        {open ? <RubricEditor templateId={templateId} questionId={question.id} questionLabel={question.label} items={items} canEdit maxMarks={question.max_marks} /> : null}
      </div>
      <div className="dialog__actions">
        <Button onClick={close}>Done</Button>
      </div>
    </Modal>
  );
}
