"use client";

import { createContext, useContext, type ReactNode } from "react";
import { DEFAULT_LOCALE } from "@/lib/accept-language";
import { type DateStyle, formatDate, formatDay } from "@/lib/dates";
import { useHydrated } from "./use-hydrated";

/**
 * The one way Markbook writes dates and times: Intl in the reader's locale, in three styles. The
 * locale comes from the request (Accept-Language, read once by the signed-in layout) and reaches the
 * browser through DateLocaleProvider, so the server and the browser format with the same locale. The
 * time zone is the browser's; the server cannot know it, so the server's pass (and hydration) writes
 * UTC and the browser rewrites the text once hydrated: no hydration mismatch.
 */

const DateLocale = createContext(DEFAULT_LOCALE);

export function DateLocaleProvider({ locale, children }: { locale: string; children: ReactNode }) {
  return <DateLocale.Provider value={locale}>{children}</DateLocale.Provider>;
}


/** A formatter for the current reader: the request's locale, the browser's time zone once hydrated. */
export function useDateFormat(): (value: Date | string, style: DateStyle) => string {
  const locale = useContext(DateLocale);
  const hydrated = useHydrated();
  return (value, style) => formatDate(value, style, { locale, timeZone: hydrated ? undefined : "UTC" });
}

/** `<time>` with a machine-readable datetime and the reader's formatting of it. */
export function LocalDate({ value, style = "date" }: { value: Date | string; style?: DateStyle }) {
  const format = useDateFormat();
  const iso = typeof value === "string" ? value : value.toISOString();
  return <time dateTime={iso}>{format(value, style)}</time>;
}

/** A calendar day (`2026-11-24`) in the reader's locale: no time zone moves it. */
export function LocalDay({ day }: { day: string }) {
  return <time dateTime={day}>{formatDay(day, useContext(DateLocale))}</time>;
}
