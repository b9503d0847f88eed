import { describe, expect, it } from "vitest";
import { localeFromAcceptLanguage } from "../lib/accept-language";
import { formatDate, formatDay } from "../lib/dates";

describe("one way of writing dates", () => {
  const moment = new Date("2026-11-24T09:05:00Z");

  it("writes a date in the reader's locale, one style per kind of value", () => {
    expect(formatDate(moment, "date", { locale: "en-GB", timeZone: "UTC" })).toBe("24 Nov 2026");
    expect(formatDate(moment, "date", { locale: "en-US", timeZone: "UTC" })).toBe("Nov 24, 2026");
    expect(formatDate(moment.toISOString(), "time", { locale: "en-GB", timeZone: "UTC" })).toBe("09:05");
    expect(formatDate(moment, "dateTime", { locale: "de-DE", timeZone: "UTC" })).toBe("24. Nov. 2026, 09:05");
  });

  it("writes the same text wherever it runs, given the same locale and zone (server pass and hydration)", () => {
    const onServer = formatDate(moment, "dateTime", { locale: "fr-FR", timeZone: "UTC" });
    const inBrowserBeforeHydration = formatDate(moment.toISOString(), "dateTime", { locale: "fr-FR", timeZone: "UTC" });
    expect(inBrowserBeforeHydration).toBe(onServer);
  });

  it("keeps a calendar day on its day in every time zone", () => {
    expect(formatDay("2026-11-24", "en-GB")).toBe("24 Nov 2026");
    expect(formatDay("2026-01-01", "en-US")).toBe("Jan 1, 2026");
  });

  it("takes the reader's locale from Accept-Language by preference, and a default otherwise", () => {
    expect(localeFromAcceptLanguage("en-US,en;q=0.9")).toBe("en-US");
    expect(localeFromAcceptLanguage("fr;q=0.5, de-DE;q=0.8")).toBe("de-DE");
    expect(localeFromAcceptLanguage("*, not a tag!!, nl-NL;q=0.1")).toBe("nl-NL");
    expect(localeFromAcceptLanguage(null)).toBe("en-GB");
    expect(localeFromAcceptLanguage("")).toBe("en-GB");
  });
});
