import type { Metadata } from "next";
import { ScanPagesView } from "@/components/batches/intake/ScanPagesView";
import { requireSignedInProfile } from "../../../signed-in";

export const metadata: Metadata = { title: "Scanned pages" };

export default async function ScanPagesPage({ params }: { params: Promise<{ batchId: string }> }) {
  const { batchId } = await params;
  const profile = await requireSignedInProfile(`/batches/${batchId}/pages`);
  return (
    <div className="page page--wide">
      <ScanPagesView batchId={batchId} viewerId={profile.id} />
    </div>
  );
}
