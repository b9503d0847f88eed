"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type CSSProperties } from "react";
import { Badge } from "@/components/ui/Badge";
import { Button } from "@/components/ui/Button";
import { EmptyState } from "@/components/ui/EmptyState";
import { CalendarIcon } from "@/components/ui/icons";
import { LoadFailed } from "@/components/ui/LoadFailed";
import { Status } from "@/components/ui/Status";
import { Loading } from "@/components/ui/Loading";
import { Notice } from "@/components/ui/Notice";
import { useTRPC } from "@/lib/trpc/client";
import { errorCode, errorMessage } from "@/lib/trpc/errors";
import { EntryDialog, type EntryDraft } from "./EntryDialog";
import { dayName, shortTime, timetableTypeLabels } from "./time";

export interface TimetableEntry {
  id: string;
  day: number;
  period: number;
  start_time: string;
  end_time: string;
  room: string | null;
  class_id: string | null;
  teacher_id: string | null;
}

const WEEKDAYS = [1, 2, 3, 4, 5];
const DEFAULT_PERIODS = 5;

/** The usual start and end of each period, from the entries (the most common pair wins). */
function periodTimes(entries: TimetableEntry[]) {
  const counts = new Map<number, Map<string, number>>();
  for (const entry of entries) {
    const pairs = counts.get(entry.period) ?? new Map<string, number>();
    const key = `${shortTime(entry.start_time)}–${shortTime(entry.end_time)}`;
    pairs.set(key, (pairs.get(key) ?? 0) + 1);
    counts.set(entry.period, pairs);
  }
  const times = new Map<number, { start: string; end: string }>();
  for (const [period, pairs] of counts) {
    const [best] = [...pairs.entries()].sort((a, b) => b[1] - a[1])[0]!;
    const [start, end] = best.split("–") as [string, string];
    times.set(period, { start, end });
  }
  return times;
}

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
  const days = [...new Set([...WEEKDAYS, ...data.entries.map((entry) => entry.day)])].sort((a, b) => a - b);
  const lastPeriod = Math.max(data.entries.length ? 0 : DEFAULT_PERIODS, ...data.entries.map((entry) => entry.period));
  const periods = Array.from({ length: lastPeriod }, (_, index) => index + 1);
  const times = periodTimes(data.entries);

  const usualTimes = (entry: TimetableEntry) => {
    const usual = times.get(entry.period);
    return usual?.start === shortTime(entry.start_time) && usual.end === shortTime(entry.end_time);
  };

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
      <Link href={canManage ? "/timetables" : "/classes"} className="back-link">
        ← {canManage ? "All timetables" : "Classes"}
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

      <div className="week-grid-wrap">
        {/* The day count sets the grid's narrowest width (CSS): a wider week scrolls inside its frame. */}
        <table className="week-grid" style={{ "--week-days": days.length } as CSSProperties}>
          <caption className="visually-hidden">
            {data.name}: lessons by day and period{canManage ? ". Choose a lesson to edit it." : ""}
          </caption>
          <thead>
            <tr>
              <th scope="col" className="week-grid__corner">Period</th>
              {days.map((day) => (
                <th scope="col" key={day}>
                  {dayName(day)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {periods.map((period) => (
              <tr key={period}>
                <th scope="row" className="week-grid__period">
                  <span className="week-grid__period-number">Period {period}</span>
                  {times.get(period) ? (
                    <span className="week-grid__period-time">
                      {times.get(period)!.start}–{times.get(period)!.end}
                    </span>
                  ) : null}
                </th>
                {days.map((day) => {
                  const lessons = data.entries.filter((entry) => entry.day === day && entry.period === period);
                  return (
                    <td key={day} className="week-grid__cell">
                      <ul className="week-grid__lessons">
                        {lessons.map((entry) => {
                          const className = entry.class_id ? (classNames.get(entry.class_id) ?? "A class") : "No class";
                          const teacher = entry.teacher_id ? (teacherNames.get(entry.teacher_id) ?? "A teacher") : "No teacher";
                          const content = (
                            <>
                              <span className="lesson__class">{className}</span>
                              <span className="lesson__meta">{teacher}</span>
                              <span className="lesson__meta">
                                {entry.room ? `Room ${entry.room}` : "No room"}
                                {/* The times only when they differ from the period's usual ones (shown in the row header). */}
                                {usualTimes(entry) ? null : ` · ${shortTime(entry.start_time)}–${shortTime(entry.end_time)}`}
                              </span>
                            </>
                          );
                          return (
                            <li key={entry.id}>
                              {canManage ? (
                                <button
                                  type="button"
                                  className="lesson lesson--button"
                                  aria-label={`Edit ${className}, ${dayName(day)} period ${period}, ${teacher}, ${entry.room ? `room ${entry.room}` : "no room"}`}
                                  onClick={() =>
                                    setDraft({
                                      id: entry.id,
                                      day: entry.day,
                                      period: entry.period,
                                      start_time: shortTime(entry.start_time),
                                      end_time: shortTime(entry.end_time),
                                      room: entry.room ?? "",
                                      class_id: entry.class_id ?? "",
                                      teacher_id: entry.teacher_id ?? "",
                                    })
                                  }
                                >
                                  {content}
                                </button>
                              ) : (
                                <div className="lesson">{content}</div>
                              )}
                            </li>
                          );
                        })}
                      </ul>
                      {canManage ? (
                        <button
                          type="button"
                          className="week-grid__add"
                          aria-label={`Add a lesson on ${dayName(day)}, period ${period}`}
                          onClick={() => setDraft(newDraft(day, period))}
                        >
                          <span aria-hidden="true">+</span>
                          <span className="week-grid__add-text">Add</span>
                        </button>
                      ) : lessons.length === 0 ? (
                        <span className="visually-hidden">No lesson</span>
                      ) : null}
                    </td>
                  );
                })}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
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
