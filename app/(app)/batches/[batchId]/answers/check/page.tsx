import type { Metadata } from "next";
import { CheckScreen } from "@/components/answers/CheckScreen";
import { requireSignedInProfile } from "../../../../signed-in";

export const metadata: Metadata = { title: "Check undecided answers" };

export default async function CheckAnswersPage({ params }: { params: Promise<{ batchId: string }> }) {
  const { batchId } = await params;
  await requireSignedInProfile(`/batches/${batchId}/answers/check`);
  return (
    <div className="page">
      <CheckScreen batchId={batchId} />
    </div>
  );
}
