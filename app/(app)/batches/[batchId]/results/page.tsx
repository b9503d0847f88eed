import type { Metadata } from "next";
import { ResultsView } from "@/components/results/ResultsView";
import { requireSignedInProfile } from "../../../signed-in";

export const metadata: Metadata = { title: "Results" };

export default async function ResultsPage({ params }: { params: Promise<{ batchId: string }> }) {
  const { batchId } = await params;
  await requireSignedInProfile(`/batches/${batchId}/results`);
  return (
    <div className="page page--wide">
      <ResultsView batchId={batchId} />
    </div>
  );
}
