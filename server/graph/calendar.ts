import type { GraphNodeInput, GraphRelationshipInput } from "./port";

/**
 * The global calendar as a graph: Calendar → CalendarYear → CalendarMonth → CalendarWeek →
 * CalendarDay. Weeks are ISO weeks (Monday to Sunday) and belong to the month of their Thursday, as
 * ISO 8601 assigns a week to a year, so every day sits in exactly one week and every week in one month.
 * Ids are readable and stable: calendar-2026, calendar-2026-01, calendar-2026-W02, calendar-2026-01-05.
 */

const CALENDAR_ROOT_KEY = "calendar";
const calendarYearKey = (year: number) => `calendar-${year}`;
const calendarMonthKey = (year: number, month: number) => `calendar-${year}-${pad(month)}`;
const calendarWeekKey = (isoYear: number, week: number) => `calendar-${isoYear}-W${pad(week)}`;
const calendarDayKey = (date: Date) => `calendar-${isoDate(date)}`;

const pad = (value: number) => String(value).padStart(2, "0");
const isoDate = (date: Date) => date.toISOString().slice(0, 10);
const DAY_MS = 86_400_000;
const monthNames = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"];
const dayNames = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/** ISO week number of the (UTC) Thursday of a week: (day of year + 6) / 7. */
function isoWeekOfThursday(thursday: Date): number {
  const startOfYear = Date.UTC(thursday.getUTCFullYear(), 0, 1);
  return Math.floor((thursday.getTime() - startOfYear) / DAY_MS / 7) + 1;
}

export function calendarGraph(years: number[]): { nodes: GraphNodeInput[]; relationships: GraphRelationshipInput[] } {
  const root = { label: "Calendar", key: CALENDAR_ROOT_KEY };
  const nodes: GraphNodeInput[] = [{ ...root, properties: { name: "Calendar" } }];
  const relationships: GraphRelationshipInput[] = [];

  for (const year of years) {
    const yearNode = { label: "CalendarYear", key: calendarYearKey(year) };
    nodes.push({ ...yearNode, properties: { name: String(year), year, order: year } });
    relationships.push({ from: root, type: "HAS_YEAR", to: yearNode });
    for (let month = 1; month <= 12; month += 1) {
      const monthNode = { label: "CalendarMonth", key: calendarMonthKey(year, month) };
      nodes.push({ ...monthNode, properties: { name: `${monthNames[month - 1]} ${year}`, year, month, order: month } });
      relationships.push({ from: yearNode, type: "HAS_MONTH", to: monthNode });
    }

    // The first Thursday of the year, then every seventh day while it stays in the year.
    let thursday = new Date(Date.UTC(year, 0, 1));
    while (thursday.getUTCDay() !== 4) thursday = new Date(thursday.getTime() + DAY_MS);
    for (; thursday.getUTCFullYear() === year; thursday = new Date(thursday.getTime() + 7 * DAY_MS)) {
      const week = isoWeekOfThursday(thursday);
      const monday = new Date(thursday.getTime() - 3 * DAY_MS);
      const sunday = new Date(thursday.getTime() + 3 * DAY_MS);
      const weekNode = { label: "CalendarWeek", key: calendarWeekKey(year, week) };
      nodes.push({
        ...weekNode,
        properties: { name: `Week ${week}, ${year}`, iso_year: year, week, start_date: isoDate(monday), end_date: isoDate(sunday), order: week },
      });
      relationships.push({
        from: { label: "CalendarMonth", key: calendarMonthKey(year, thursday.getUTCMonth() + 1) },
        type: "HAS_WEEK",
        to: weekNode,
      });
      for (let weekday = 1; weekday <= 7; weekday += 1) {
        const date = new Date(monday.getTime() + (weekday - 1) * DAY_MS);
        const dayNode = { label: "CalendarDay", key: calendarDayKey(date) };
        nodes.push({
          ...dayNode,
          properties: {
            name: `${dayNames[weekday - 1]} ${date.getUTCDate()} ${monthNames[date.getUTCMonth()]} ${date.getUTCFullYear()}`,
            date: isoDate(date),
            weekday,
            order: weekday,
          },
        });
        relationships.push({ from: weekNode, type: "HAS_DAY", to: dayNode });
      }
    }
  }
  return { nodes, relationships };
}
