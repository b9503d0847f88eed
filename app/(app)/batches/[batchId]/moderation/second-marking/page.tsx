import type { Metadata } from "next";
import { SecondMarkingScreen } from "@/components/moderation/SecondMarkingScreen";
import { requireSignedInProfile } from "../../../../signed-in";

export const metadata: Metadata = { title: "Second marking" };

export default async function SecondMarkingPage({ params, searchParams }: { params: Promise<{ batchId: string }>; searchParams: Promise<{ submission?: string | string[] }> }) {
  const { batchId } = await params;
  const { submission } = await searchParams;
  await requireSignedInProfile(`/batches/${batchId}/moderation/second-marking`);
  return (
    <div className="page page--full">
      <SecondMarkingScreen batchId={batchId} initialSubmissionId={typeof submission === "string" ? submission : null} />
    </div>
  );
}
