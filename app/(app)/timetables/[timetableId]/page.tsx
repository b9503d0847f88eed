import type { Metadata } from "next";
import { schoolRoles } from "@/components/shell/school-roles";
import { TimetableWeek } from "@/components/timetables/TimetableWeek";
import { requireSignedInProfile } from "../../signed-in";

export const metadata: Metadata = { title: "Timetable" };

export default async function TimetablePage({ params }: { params: Promise<{ timetableId: string }> }) {
  const { timetableId } = await params;
  const profile = await requireSignedInProfile(`/timetables/${timetableId}`);
  return <TimetableWeek timetableId={timetableId} canManage={schoolRoles(profile).canManageTimetables} />;
}
