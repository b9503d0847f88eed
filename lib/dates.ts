/** The date styles of Markbook, as pure functions (components/ui/dates.tsx gives them the reader's locale). */

export type DateStyle = "date" | "dateTime" | "time";

const styles: Record<DateStyle, Intl.DateTimeFormatOptions> = {
  date: { day: "numeric", month: "short", year: "numeric" },
  dateTime: { day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit" },
  time: { hour: "2-digit", minute: "2-digit" },
};

/** Locale-aware text for `value` in `style`; `timeZone` undefined is the running platform's zone. */
export function formatDate(value: Date | string, style: DateStyle, { locale, timeZone }: { locale: string; timeZone?: string }): string {
  return new Intl.DateTimeFormat(locale, { ...styles[style], timeZone }).format(typeof value === "string" ? new Date(value) : value);
}

/** A day without a time (`2026-11-24`, as a date column reads): the same day in every time zone. */
export function formatDay(isoDay: string, locale: string): string {
  return formatDate(`${isoDay}T00:00:00Z`, "date", { locale, timeZone: "UTC" });
}
