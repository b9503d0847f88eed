"use client";

import type { CSSProperties, ReactNode } from "react";
import { dayName, shortTime } from "./time";

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

/** A lesson as the grid shows it: the entry with its class and teacher named. */
export interface WeekLesson extends TimetableEntry {
  className: string;
  teacherName: string;
  /** One more line under the room (which timetable it comes from, when there are several). */
  note?: string;
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

/** The week's shape: Monday to Friday plus any day with a lesson, periods 1 to the last one used. */
export function weekShape(entries: TimetableEntry[]) {
  const days = [...new Set([...WEEKDAYS, ...entries.map((entry) => entry.day)])].sort((a, b) => a - b);
  const lastPeriod = Math.max(entries.length ? 0 : DEFAULT_PERIODS, ...entries.map((entry) => entry.period));
  const periods = Array.from({ length: lastPeriod }, (_, index) => index + 1);
  return { days, periods, lastPeriod, times: periodTimes(entries) };
}

/**
 * Lessons by day (across) and period (down). With `onEdit`/`onAdd` each lesson and empty slot is a
 * button (managers); without them the grid is read-only.
 */
export function WeekGrid({
  caption,
  lessons,
  onEdit,
  onAdd,
}: {
  caption: string;
  lessons: WeekLesson[];
  onEdit?: (lesson: WeekLesson) => void;
  onAdd?: (day: number, period: number) => void;
}) {
  const { days, periods, times } = weekShape(lessons);
  const usualTimes = (entry: TimetableEntry) => {
    const usual = times.get(entry.period);
    return usual?.start === shortTime(entry.start_time) && usual.end === shortTime(entry.end_time);
  };

  const lessonContent = (lesson: WeekLesson): ReactNode => (
    <>
      <span className="lesson__class">{lesson.className}</span>
      <span className="lesson__meta">{lesson.teacherName}</span>
      <span className="lesson__meta">
        {lesson.room ? `Room ${lesson.room}` : "No room"}
        {/* The times only when they differ from the period's usual ones (shown in the row header). */}
        {usualTimes(lesson) ? null : ` · ${shortTime(lesson.start_time)}–${shortTime(lesson.end_time)}`}
      </span>
      {lesson.note ? <span className="lesson__meta">{lesson.note}</span> : null}
    </>
  );

  return (
    <div className="week-grid-wrap">
      {/* The day count sets the grid's narrowest width (CSS): a wider week scrolls inside its frame. */}
      <table className="week-grid" style={{ "--week-days": days.length } as CSSProperties}>
        <caption className="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col" className="week-grid__corner">
              Period
            </th>
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
                const here = lessons.filter((lesson) => lesson.day === day && lesson.period === period);
                return (
                  <td key={day} className="week-grid__cell">
                    <ul className="week-grid__lessons">
                      {here.map((lesson) => (
                        <li key={lesson.id}>
                          {onEdit ? (
                            <button
                              type="button"
                              className="lesson lesson--button"
                              aria-label={`Edit ${lesson.className}, ${dayName(day)} period ${period}, ${lesson.teacherName}, ${lesson.room ? `room ${lesson.room}` : "no room"}`}
                              onClick={() => onEdit(lesson)}
                            >
                              {lessonContent(lesson)}
                            </button>
                          ) : (
                            <div className="lesson">{lessonContent(lesson)}</div>
                          )}
                        </li>
                      ))}
                    </ul>
                    {onAdd ? (
                      <button
                        type="button"
                        className="week-grid__add"
                        aria-label={`Add a lesson on ${dayName(day)}, period ${period}`}
                        onClick={() => onAdd(day, period)}
                      >
                        <span aria-hidden="true">+</span>
                        <span className="week-grid__add-text">Add</span>
                      </button>
                    ) : here.length === 0 ? (
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
  );
}
