import type { Metadata } from "next";
import { ResultsView } from "@/components/results/ResultsView";
import { requireSignedInProfile } from "../../../signed-in";

export const metadata: Metadata = { title: "Results" };

export default async function ResultsPage({ params }: { params: Promise<{ batchId: string }> }) {
  const { batchId } = await params;
  const profile = await requireSignedInProfile(`/batches/${batchId}/results`);
  return (
    <div className="page page--wide">
      <ResultsView batchId={batchId} viewerId={profile.id} />
    </div>
  );
}
