import type { Metadata } from "next";
import { AnswersScreen } from "@/components/answers/AnswersScreen";
import { requireSignedInProfile } from "../../../signed-in";

export const metadata: Metadata = { title: "Answers read from the scans" };

export default async function AnswersPage({ params }: { params: Promise<{ batchId: string }> }) {
  const { batchId } = await params;
  const profile = await requireSignedInProfile(`/batches/${batchId}/answers`);
  return (
    <div className="page page--wide">
      <AnswersScreen batchId={batchId} viewerId={profile.id} />
    </div>
  );
}
