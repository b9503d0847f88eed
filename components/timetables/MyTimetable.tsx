"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { EmptyState } from "@/components/ui/EmptyState";
import { CalendarIcon } from "@/components/ui/icons";
import { Loading } from "@/components/ui/Loading";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { useTRPC } from "@/components/trpc/client";
import { type WeekLesson, WeekGrid } from "./WeekGrid";

/**
 * The signed-in person's own week, read-only: the lessons they teach (or, for a student, attend) in
 * their school's active timetables. `hideWhenEmpty`: for managers, whose page has the full list anyway.
 */
export function MyTimetable({ student = false, hideWhenEmpty = false }: { student?: boolean; hideWhenEmpty?: boolean }) {
  const trpc = useTRPC();
  const mine = useQuery(trpc.timetables.mine.queryOptions());

  if (mine.isPending) return hideWhenEmpty ? null : <Loading>Loading your timetable…</Loading>;
  if (mine.isError) return <LoadFailed what="Your timetable" error={mine.error} onRetry={() => mine.refetch()} />;

  const { lessons } = mine.data;
  if (lessons.length === 0) {
    if (hideWhenEmpty) return null;
    return (
      <EmptyState icon={<CalendarIcon size={28} />} title="No lessons on your timetable yet">
        <p>
          {student
            ? "Your lessons appear here once your classes are on your school's active timetable."
            : "Your lessons appear here once a school admin or head of department puts them on your school's active timetable, with you as their teacher or as the teacher of their class."}{" "}
          If a lesson is missing, ask your school&apos;s Markbook admin.
        </p>
        <p>
          Your classes are listed under <Link href="/classes">Classes</Link>.
        </p>
      </EmptyState>
    );
  }

  const timetableNames = [...new Set(lessons.map((lesson) => lesson.timetable_name))];
  const weekLessons: WeekLesson[] = lessons.map((lesson) => ({
    ...lesson,
    className: lesson.class_name ?? "No class",
    teacherName: lesson.teacher_name ?? "No teacher",
    // Which timetable a lesson comes from matters only when there are several.
    note: timetableNames.length > 1 ? lesson.timetable_name : undefined,
  }));
  return (
    <section className="stack" aria-labelledby="my-timetable-heading">
      <h2 id="my-timetable-heading">{hideWhenEmpty ? "My lessons" : "Your week"}</h2>
      <p className="muted">
        {lessons.length} {lessons.length === 1 ? "lesson" : "lessons"} a week, from {timetableNames.join(" and ")}.
      </p>
      <WeekGrid caption="Your lessons by day and period" lessons={weekLessons} />
    </section>
  );
}
