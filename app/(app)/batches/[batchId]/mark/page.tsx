import type { Metadata } from "next";
import { MarkingScreen } from "@/components/marking/MarkingScreen";
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
  await requireSignedInProfile(`/batches/${batchId}/mark`);
  return (
    <div className="page page--full">
      <MarkingScreen batchId={batchId} initialSubmissionId={typeof submission === "string" ? submission : null} initialMode={mode === "question" ? "question" : "student"} />
    </div>
  );
}
