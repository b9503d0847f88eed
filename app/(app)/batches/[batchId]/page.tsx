import type { Metadata } from "next";
import { BatchView } from "@/components/batches/BatchView";
import { requireSignedInProfile } from "../../signed-in";

export const metadata: Metadata = { title: "Batch" };

export default async function BatchPage({ params }: { params: Promise<{ batchId: string }> }) {
  const { batchId } = await params;
  const profile = await requireSignedInProfile(`/batches/${batchId}`);
  return (
    <div className="page page--wide">
      <BatchView batchId={batchId} viewerId={profile.id} />
    </div>
  );
}
