import { foldName } from "@/lib/text/names";

/**
 * Identify by keyboard: the teacher reads the name on a script and types its first letters; the
 * students whose names fit come first, so that two or three letters and Enter identify most scripts.
 */

export interface IdentifyCandidate {
  id: string;
  name: string;
  /** Already has a scan in this batch: still offered (a spare copy may complete it), but after the others. */
  identified: boolean;
}

/** Folded words ("zoe" finds Zoë, "o'b" finds O’Brien, "luk" finds Łukasz): lib/text/names.ts folds every search. */
const words = (text: string) => foldName(text).split(/[\s-]+/u).filter(Boolean);

/**
 * Whether every word typed starts a different word of the name, in any order: "lov" and "ada l" find
 * Ada Lovelace, as do "lovelace ada" and "l a".
 */
export function nameFits(name: string, typed: string): boolean {
  const wanted = words(typed);
  if (wanted.length === 0) return true;
  const available = words(name);
  // Longest first: two prefixes of one word are prefixes of each other, so the shorter one fits every
  // word the longer one fits, and taking words greedily in this order never strands a prefix.
  for (const prefix of wanted.sort((a, b) => b.length - a.length)) {
    const index = available.findIndex((word) => word.startsWith(prefix));
    if (index < 0) return false;
    available.splice(index, 1);
  }
  return true;
}

/**
 * The students whose names fit what was typed, best first: not yet identified before identified, then a
 * name whose first word fits the first word typed, then the list's own order (the roster's).
 */
export function rankForIdentify<T extends IdentifyCandidate>(students: readonly T[], typed: string): T[] {
  const first = words(typed)[0];
  const startsWithFirst = (student: T) => (first !== undefined && words(student.name)[0]?.startsWith(first) ? 0 : 1);
  return students
    .map((student, order) => ({ student, order }))
    .filter(({ student }) => nameFits(student.name, typed))
    .sort((a, b) => Number(a.student.identified) - Number(b.student.identified) || startsWithFirst(a.student) - startsWithFirst(b.student) || a.order - b.order)
    .map(({ student }) => student);
}
