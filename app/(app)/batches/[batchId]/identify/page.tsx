import type { Metadata } from "next";
import { IdentifyQueue } from "@/components/batches/identify/IdentifyQueue";
import { requireSignedInProfile } from "../../../signed-in";

export const metadata: Metadata = { title: "Identify scripts" };

export default async function IdentifyPage({ params }: { params: Promise<{ batchId: string }> }) {
  const { batchId } = await params;
  await requireSignedInProfile(`/batches/${batchId}/identify`);
  return (
    <div className="page">
      <IdentifyQueue batchId={batchId} />
    </div>
  );
}
