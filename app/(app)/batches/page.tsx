import type { Metadata } from "next";
import { PageHeader } from "@/components/shell/PageHeader";
import { EmptyState } from "@/components/ui/EmptyState";
import { BatchIcon } from "@/components/ui/icons";
import { requireSignedInProfile } from "../signed-in";

export const metadata: Metadata = { title: "Batches" };

export default async function BatchesPage() {
  await requireSignedInProfile("/batches");
  return (
    <div className="page">
      <PageHeader title="Batches">A marking batch is one class&apos;s scripts for one exam template.</PageHeader>
      <EmptyState
        icon={<BatchIcon size={28} />}
        title="No marking batches yet"
        upcoming={[
          "Create a batch from a template for a class; each student gets a submission.",
          "Upload the scanned scripts; pages are matched to students.",
          "Mark question by question, then export the results.",
        ]}
        note="This area is being built: batches arrive together with templates."
      >
        <p>Marking batches will appear here, with how many scripts are scanned and marked in each.</p>
      </EmptyState>
    </div>
  );
}
