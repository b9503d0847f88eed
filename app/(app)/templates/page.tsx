import type { Metadata } from "next";
import { PageHeader } from "@/components/shell/PageHeader";
import { EmptyState } from "@/components/ui/EmptyState";
import { TemplateIcon } from "@/components/ui/icons";
import { requireSignedInProfile } from "../signed-in";

export const metadata: Metadata = { title: "Templates" };

export default async function TemplatesPage() {
  await requireSignedInProfile("/templates");
  return (
    <div className="page">
      <PageHeader title="Templates">An exam template is a PDF paper with its questions marked out.</PageHeader>
      <EmptyState
        icon={<TemplateIcon size={28} />}
        title="No exam templates yet"
        upcoming={[
          "Upload an exam paper as a PDF.",
          "Draw a box around each question's answer area and give it its maximum mark.",
          "Share templates with the teachers of your department.",
        ]}
        note="This area is being built: creating templates is coming in a later release."
      >
        <p>
          Exam templates will appear here: draw question areas over a PDF paper, then create marking batches from
          them.
        </p>
      </EmptyState>
    </div>
  );
}
