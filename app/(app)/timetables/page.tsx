import type { Metadata } from "next";
import { PageHeader } from "@/components/shell/PageHeader";
import { MyTimetable } from "@/components/timetables/MyTimetable";
import { schoolRoles } from "@/components/shell/school-roles";
import { TimetablesList } from "@/components/timetables/TimetablesList";
import { requireSignedInProfile } from "../signed-in";

export const metadata: Metadata = { title: "Timetables" };

/** Managers get the school's timetables (and their own lessons, if they teach); everyone else their own week. */
export default async function TimetablesPage() {
  const profile = await requireSignedInProfile("/timetables");
  const { canManageTimetables } = schoolRoles(profile);
  if (canManageTimetables) {
    return (
      <div className="page">
        <PageHeader title="Timetables">Which class meets when: lessons week by week, with their teacher and room.</PageHeader>
        <TimetablesList />
        <MyTimetable hideWhenEmpty />
      </div>
    );
  }
  const student = profile.memberships.every((membership) => membership.role === "student") && profile.memberships.length > 0;
  return (
    <div className="page">
      <PageHeader title="My timetable">Your lessons week by week, from your school&apos;s active timetable. School admins and heads of department change it.</PageHeader>
      <MyTimetable student={student} />
    </div>
  );
}
