import type { Metadata } from "next";
import Link from "next/link";
import { PageHeader } from "@/components/shell/PageHeader";
import { schoolRoles } from "@/components/timetables/school-roles";
import { TimetablesList } from "@/components/timetables/TimetablesList";
import { EmptyState } from "@/components/ui/EmptyState";
import { CalendarIcon } from "@/components/ui/icons";
import { requireSignedInProfile } from "../signed-in";

export const metadata: Metadata = { title: "Timetables" };

export default async function TimetablesPage() {
  const profile = await requireSignedInProfile("/timetables");
  const { canManageTimetables } = schoolRoles(profile);
  return (
    <div className="page">
      <PageHeader title="Timetables">Which class meets when: lessons week by week, with their teacher and room.</PageHeader>
      {canManageTimetables ? (
        <TimetablesList />
      ) : (
        <EmptyState icon={<CalendarIcon size={28} />} title="Timetables are managed by your school">
          <p>
            School admins and heads of department create and change the timetables. If a lesson of yours is missing or wrong,
            ask one of them.
          </p>
          <p>
            Your classes are listed under <Link href="/classes">Classes</Link>.
          </p>
        </EmptyState>
      )}
    </div>
  );
}
