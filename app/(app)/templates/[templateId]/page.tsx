import type { Metadata } from "next";
import { TemplateEditor } from "@/components/templates/TemplateEditor";
import { requireSignedInProfile } from "../../signed-in";

export const metadata: Metadata = { title: "Template editor" };

export default async function TemplateEditorPage({ params }: { params: Promise<{ templateId: string }> }) {
  const { templateId } = await params;
  const profile = await requireSignedInProfile(`/templates/${templateId}`);
  return <TemplateEditor templateId={templateId} userId={profile.id} />;
}
