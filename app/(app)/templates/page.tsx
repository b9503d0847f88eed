import type { Metadata } from "next";
import { PageHeader } from "@/components/shell/PageHeader";
import { TemplatesList } from "@/components/templates/TemplatesList";
import { requireSignedInProfile } from "../signed-in";

export const metadata: Metadata = { title: "Templates" };

export default async function TemplatesPage() {
  await requireSignedInProfile("/templates");
  return (
    <div className="page">
      <PageHeader title="Templates">An exam template is a PDF paper with its questions and answer areas marked out.</PageHeader>
      <TemplatesList />
    </div>
  );
}
