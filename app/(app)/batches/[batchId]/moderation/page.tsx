import type { Metadata } from "next";
import { ModerationView } from "@/components/moderation/ModerationView";
import { requireSignedInProfile } from "../../../signed-in";

export const metadata: Metadata = { title: "Moderation" };

export default async function ModerationPage({ params }: { params: Promise<{ batchId: string }> }) {
  const { batchId } = await params;
  await requireSignedInProfile(`/batches/${batchId}/moderation`);
  return (
    <div className="page page--wide">
      <ModerationView batchId={batchId} />
    </div>
  );
}
