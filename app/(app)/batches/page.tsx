import type { Metadata } from "next";
import { BatchesList } from "@/components/batches/BatchesList";
import { PageHeader } from "@/components/shell/PageHeader";
import { requireSignedInProfile } from "../signed-in";

export const metadata: Metadata = { title: "Batches" };

export default async function BatchesPage() {
  await requireSignedInProfile("/batches");
  return (
    <div className="page">
      <PageHeader title="Batches">A marking batch is one class&apos;s scripts for one exam template.</PageHeader>
      <BatchesList />
    </div>
  );
}
