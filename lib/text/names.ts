/**
 * People's names as schools search and sort them, for the server and the browser alike (this module
 * imports nothing): a search ignores case, accents and the style of apostrophes and hyphens ("zoe" finds
 * Zoë, "o'brien" finds O’Brien, "lukasz" finds Łukasz), and lists sort by surname, then the whole name,
 * with a locale-aware collation (Łukasz before Zoë), never by code point.
 */

/** Letters that NFKD leaves whole (no combining mark to strip), written as their usual Latin spelling. */
const LETTERS: Record<string, string> = {
  ł: "l",
  ø: "o",
  ß: "ss",
  ẞ: "ss",
  æ: "ae",
  œ: "oe",
  đ: "d",
  ð: "d",
  þ: "th",
  ħ: "h",
  ı: "i",
  ŀ: "l",
  ŧ: "t",
  ŋ: "n",
  ĸ: "k",
  ſ: "s",
};
const LETTER = new RegExp(`[${Object.keys(LETTERS).join("")}]`, "gu");
/** Apostrophes and the marks written for them: ’ ‘ ʼ ʻ ` ´ ′ and the typewriter one. */
const APOSTROPHE = /['’‘ʼʻ`´′‛]/gu;
/** Hyphens and dashes: - ‐ ‑ ‒ – — ― and the minus sign. */
const HYPHEN = /[-‐‑‒–—―−]/gu;

/**
 * A name (or any search text) folded for matching: compatibility-decomposed (NFKD), combining marks
 * stripped, the letters NFKD keeps whole spelled out, apostrophes as ', hyphens as -, white space as one
 * space, lower case. Folding a folded text changes nothing.
 */
export function foldName(text: string): string {
  return text
    .normalize("NFKD")
    .replace(/\p{M}/gu, "")
    .toLowerCase()
    .replace(LETTER, (letter) => LETTERS[letter]!)
    .replace(APOSTROPHE, "'")
    .replace(HYPHEN, "-")
    .replace(/\s+/gu, " ")
    .trim()
    .normalize("NFKD")
    .replace(/\p{M}/gu, "");
}

/** Whether `text` contains what was searched for (already folded; empty finds everything). */
export const foldedIncludes = (text: string, foldedSearch: string) => foldedSearch === "" || foldName(text).includes(foldedSearch);

/** The collation lists are sorted with: English rules on CLDR's root order, accents and case aside. */
const collator = new Intl.Collator("en", { sensitivity: "base", numeric: true });

/** The surname of a full name as schools sort it: its last word ("Ada Lovelace" → "Lovelace"). */
function surnameOf(fullName: string): string {
  const words = fullName.trim().split(/\s+/u);
  return words[words.length - 1] ?? "";
}

/** Compares two texts (a surname, a first name) with the collation above. */
export const compareCollated = (a: string, b: string): number => collator.compare(a, b);

/** Compares two full names by surname, then by the whole name, with the collation above. */
export function compareNames(a: string, b: string): number {
  return collator.compare(surnameOf(a), surnameOf(b)) || collator.compare(a, b);
}

/**
 * The rows sorted by the name `nameOf` gives (surname, then whole name), ties by `tieOf` (an id) so that
 * the order is total and pages never overlap. Returns a new array.
 */
export function sortByName<T>(rows: readonly T[], nameOf: (row: T) => string, tieOf: (row: T) => string): T[] {
  return [...rows].sort((a, b) => compareNames(nameOf(a), nameOf(b)) || (tieOf(a) < tieOf(b) ? -1 : tieOf(a) > tieOf(b) ? 1 : 0));
}

/**
 * The rows sorted by the whole name with the same collation (first word first), ties by `tieOf`: for a
 * list the contract says is "ordered by full_name" (GET /database/timetable/classes/school/students,
 * docs/spec/classroom-api.md "Supporting endpoints").
 */
export function sortByFullName<T>(rows: readonly T[], nameOf: (row: T) => string, tieOf: (row: T) => string): T[] {
  return [...rows].sort((a, b) => collator.compare(nameOf(a), nameOf(b)) || (tieOf(a) < tieOf(b) ? -1 : tieOf(a) > tieOf(b) ? 1 : 0));
}
