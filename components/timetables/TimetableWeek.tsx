"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { EmptyState } from "@/components/ui/EmptyState";
import { CalendarIcon } from "@/components/ui/icons";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Status } from "@/components/ui/Status";
import { Loading } from "@/components/ui/Loading";
import { Notice } from "@/components/ui/Notice";
import { useTRPC } from "@/components/trpc/client";
import { errorCode, errorMessage } from "@/lib/trpc/errors";
import { EntryDialog, type EntryDraft } from "./EntryDialog";
import { shortTime, timetableTypeLabels } from "./time";
import { type WeekLesson, WeekGrid, weekShape } from "./WeekGrid";

/** A timetable's week: days across, periods down; managers add, edit and delete lessons in place. */
export function TimetableWeek({ timetableId, canManage }: { timetableId: string; canManage: boolean }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const timetable = useQuery(trpc.timetables.get.queryOptions({ id: timetableId }));
  const classes = useQuery(trpc.classes.list.queryOptions());
  const staff = useQuery(trpc.classes.schoolStaff.queryOptions());
  const [draft, setDraft] = useState<EntryDraft | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const activate = useMutation(
    trpc.timetables.activate.mutationOptions({
      onSuccess: () =>
        Promise.all([
          queryClient.invalidateQueries({ queryKey: trpc.timetables.get.queryKey({ id: timetableId }) }),
          queryClient.invalidateQueries({ queryKey: trpc.timetables.list.queryKey() }),
        ]),
    }),
  );

  if (timetable.isPending) {
    return <Loading>Loading the timetable…</Loading>;
  }
  if (timetable.isError) {
    if (errorCode(timetable.error) === "NOT_FOUND") {
      return (
        <div className="page">
          <Link href="/timetables" className="back-link">← All timetables</Link>
          <EmptyState icon={<CalendarIcon size={28} />} title="Timetable not found">
            <p>It may have been deleted, or it belongs to another school. Choose one from the list of timetables.</p>
          </EmptyState>
        </div>
      );
    }
    return (
      <div className="page">
        <Link href="/timetables" className="back-link">← All timetables</Link>
        <LoadFailed what="The timetable" error={timetable.error} onRetry={() => timetable.refetch()} />
      </div>
    );
  }

  const data = timetable.data;
  const classNames = new Map((classes.data?.classes ?? []).map((row) => [row.id, row.name]));
  const teacherNames = new Map((staff.data?.staff ?? []).map((person) => [person.id, person.full_name]));
  const { lastPeriod, times } = weekShape(data.entries);
  const lessons: WeekLesson[] = data.entries.map((entry) => ({
    ...entry,
    className: entry.class_id ? (classNames.get(entry.class_id) ?? "A class") : "No class",
    teacherName: entry.teacher_id ? (teacherNames.get(entry.teacher_id) ?? "A teacher") : "No teacher",
  }));

  const newDraft = (day: number, period: number): EntryDraft => ({
    id: null,
    day,
    period,
    start_time: times.get(period)?.start ?? "",
    end_time: times.get(period)?.end ?? "",
    room: "",
    class_id: data.class_id ?? "",
    teacher_id: "",
  });

  return (
    <div className="page timetable-page">
      <Link href="/timetables" className="back-link">
        ← {canManage ? "All timetables" : "My timetable"}
      </Link>
      <header className="page__header timetable-page__header">
        <div>
          <h1>{data.name}</h1>
          <p className="page__lede cluster">
            <span>{timetableTypeLabels[data.type]}</span>
            {data.active ? <Badge tone="success">Active</Badge> : <Badge tone="neutral">Inactive</Badge>}
            <span>
              {data.entries.length} {data.entries.length === 1 ? "lesson" : "lessons"} a week
            </span>
          </p>
        </div>
        {canManage ? (
          <div className="cluster">
            {data.active ? null : (
              <Button variant="secondary" loading={activate.isPending} loadingLabel="Activating…" onClick={() => activate.mutate({ id: data.id })}>
                Activate
              </Button>
            )}
            <Button onClick={() => setDraft(newDraft(1, 1))}>Add a lesson</Button>
          </div>
        ) : null}
      </header>

      {canManage ? null : (
        <Status tone="info" role="none">
          You can view this timetable. School admins and heads of department change it.
        </Status>
      )}
      {activate.isError ? <Status tone="error">{errorMessage(activate.error)}</Status> : null}
      {notice ? <Notice onDismiss={() => setNotice(null)}>{notice}</Notice> : null}

      <WeekGrid
        caption={`${data.name}: lessons by day and period${canManage ? ". Choose a lesson to edit it." : ""}`}
        lessons={lessons}
        onEdit={
          canManage
            ? (lesson) =>
                setDraft({
                  id: lesson.id,
                  day: lesson.day,
                  period: lesson.period,
                  start_time: shortTime(lesson.start_time),
                  end_time: shortTime(lesson.end_time),
                  room: lesson.room ?? "",
                  class_id: lesson.class_id ?? "",
                  teacher_id: lesson.teacher_id ?? "",
                })
            : undefined
        }
        onAdd={canManage ? (day, period) => setDraft(newDraft(day, period)) : undefined}
      />
      {canManage ? (
        <p className="muted week-grid__hint">
          To add a period after period {lastPeriod}, choose <strong>Add a lesson</strong> and give its period number.
        </p>
      ) : null}

      {canManage ? (
        <EntryDialog
          timetableId={data.id}
          draft={draft}
          classes={(classes.data?.classes ?? []).map((row) => ({ value: row.id, label: row.name }))}
          teachers={(staff.data?.staff ?? []).map((person) => ({ value: person.id, label: person.full_name }))}
          onClose={() => setDraft(null)}
          onDone={(message) => {
            setDraft(null);
            setNotice(message);
            return queryClient.invalidateQueries({ queryKey: trpc.timetables.get.queryKey({ id: timetableId }) });
          }}
        />
      ) : null}
    </div>
  );
}
