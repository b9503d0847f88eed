import type { Metadata } from "next";
import { MarkingScreen } from "@/components/marking/MarkingScreen";
import { getDatabase } from "@/server/db/client";
import { createCaller } from "@/server/trpc/root";
import { requireSignedInProfile } from "../../../signed-in";

export const metadata: Metadata = { title: "Marking" };

export default async function MarkingPage({
  params,
  searchParams,
}: {
  params: Promise<{ batchId: string }>;
  searchParams: Promise<{ submission?: string | string[]; mode?: string | string[] }>;
}) {
  const { batchId } = await params;
  const { submission, mode } = await searchParams;
  const profile = await requireSignedInProfile(`/batches/${batchId}/mark`);
  // The queue and the template come with the page, so the screen does not wait for two round trips
  // after hydration. A failure here leaves them to the screen, which asks again and shows the error.
  const caller = createCaller({ db: (await getDatabase()).db, user: { id: profile.id } });
  const queue = await caller.exam.batches.queue({ batch_id: batchId }).catch(() => undefined);
  const template = queue ? await caller.exam.templates.get({ template_id: queue.batch.template_id }).catch(() => undefined) : undefined;
  return (
    <div className="page page--full">
      <MarkingScreen
        batchId={batchId}
        userId={profile.id}
        initialSubmissionId={typeof submission === "string" ? submission : null}
        initialMode={mode === "question" ? "question" : "student"}
        initialQueue={queue}
        initialTemplate={template}
      />
    </div>
  );
}
