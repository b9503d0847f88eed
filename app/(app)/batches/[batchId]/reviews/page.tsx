import type { Metadata } from "next";
import { ReviewRequestsView } from "@/components/batches/reviews/ReviewRequestsView";
import { requireSignedInProfile } from "../../../signed-in";

export const metadata: Metadata = { title: "Review requests" };

/** The review requests of one batch that the signed-in marker answers. */
export default async function ReviewRequestsPage({ params }: { params: Promise<{ batchId: string }> }) {
  const { batchId } = await params;
  await requireSignedInProfile(`/batches/${batchId}/reviews`);
  return (
    <div className="page">
      <ReviewRequestsView batchId={batchId} />
    </div>
  );
}
