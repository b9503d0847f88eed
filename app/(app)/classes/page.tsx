import type { Metadata } from "next";
import { ClassesList } from "@/components/classes/ClassesList";
import { PageHeader } from "@/components/shell/PageHeader";
import { schoolRoles } from "@/components/shell/school-roles";
import { requireSignedInProfile } from "../signed-in";

export const metadata: Metadata = { title: "Classes" };

export default async function ClassesPage() {
  const profile = await requireSignedInProfile("/classes");
  return (
    <div className="page">
      <PageHeader title="Classes">The classes of your school and their students.</PageHeader>
      <ClassesList isSchoolAdmin={schoolRoles(profile).isSchoolAdmin} />
    </div>
  );
}
