import type { Metadata } from "next";
import { MarkedScript } from "@/components/student/MarkedScript";
import { requireSignedInProfile } from "../../signed-in";

export const metadata: Metadata = { title: "Marked script" };

/** One released script of the signed-in student. */
export default async function MarkedScriptPage({ params }: { params: Promise<{ submissionId: string }> }) {
  const { submissionId } = await params;
  await requireSignedInProfile(`/my-work/${submissionId}`);
  return (
    <div className="page">
      <MarkedScript submissionId={submissionId} />
    </div>
  );
}
