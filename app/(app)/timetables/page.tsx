import type { Metadata } from "next";
import { PageHeader } from "@/components/shell/PageHeader";
import { EmptyState } from "@/components/ui/EmptyState";
import { CalendarIcon } from "@/components/ui/icons";
import { requireSignedInProfile } from "../signed-in";

export const metadata: Metadata = { title: "Timetables" };

export default async function TimetablesPage() {
  await requireSignedInProfile("/timetables");
  return (
    <div className="page">
      <PageHeader title="Timetables">Your school&apos;s classes and when they meet.</PageHeader>
      <EmptyState
        icon={<CalendarIcon size={28} />}
        title="No timetable yet"
        upcoming={[
          "See your classes and lessons week by week.",
          "School admins create classes, add students and teachers, and set the timetable.",
        ]}
        note="This area is being built: classes and timetables are coming in a later release."
      >
        <p>Timetables will appear here: the classes you teach or attend, and when their lessons are.</p>
      </EmptyState>
    </div>
  );
}
