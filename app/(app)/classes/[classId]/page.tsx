import type { Metadata } from "next";
import { ClassDetail } from "@/components/classes/ClassDetail";
import { schoolRoles } from "@/components/shell/school-roles";
import { requireSignedInProfile } from "../../signed-in";

export const metadata: Metadata = { title: "Class" };

export default async function ClassPage({ params }: { params: Promise<{ classId: string }> }) {
  const { classId } = await params;
  const profile = await requireSignedInProfile(`/classes/${classId}`);
  return <ClassDetail classId={classId} isSchoolAdmin={schoolRoles(profile).isSchoolAdmin} />;
}
