/** The locale dates are written in when the request names none Markbook can use. */
export const DEFAULT_LOCALE = "en-GB";

/**
 * The reader's locale from an Accept-Language header: the first tag, by the order of preference
 * (q-values), that Intl can format dates in; DEFAULT_LOCALE otherwise.
 */
export function localeFromAcceptLanguage(header: string | null): string {
  const tags = (header ?? "")
    .split(",")
    .map((part, index) => {
      const [tag = "", ...parameters] = part.split(";").map((piece) => piece.trim());
      const q = Number(parameters.find((parameter) => parameter.startsWith("q="))?.slice(2) ?? "1");
      return { tag, q: Number.isFinite(q) ? q : 0, index };
    })
    .filter(({ tag, q }) => tag !== "" && tag !== "*" && q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
  for (const { tag } of tags) {
    try {
      const [supported] = Intl.DateTimeFormat.supportedLocalesOf(tag);
      if (supported) return supported;
    } catch {
      // Not a language tag: try the next one.
    }
  }
  return DEFAULT_LOCALE;
}
