import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareNames, foldName, foldedIncludes, sortByName } from "@/lib/text/names";

/** Letters of school names: plain, accented (precomposed and not), the ones NFKD keeps whole, marks between. */
const letter = fc.constantFrom(..."abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ", "é", "É", "ë", "ñ", "ç", "ü", "Å", "ą", "ș", "ł", "Ł", "ø", "Ø", "ß", "æ", "Æ", "œ", "Œ", "đ", "Đ", "e\u0301", "o\u0308");
const joiner = fc.constantFrom(" ", "  ", "'", "’", "‘", "ʼ", "-", "‐", "–", "\t");
const schoolName = fc.array(fc.oneof({ weight: 5, arbitrary: letter }, { weight: 1, arbitrary: joiner }), { minLength: 1, maxLength: 30 }).map((parts) => parts.join(""));

/** Plain ASCII names, and ways of writing each letter and mark that a search must treat as the same. */
const plainName = fc.array(fc.constantFrom(..."abcdelnostuz", " ", "'", "-"), { minLength: 1, maxLength: 20 }).map((parts) => parts.join(""));
const variants: Record<string, string[]> = {
  a: ["a", "A", "á", "à", "â", "ä", "Ä", "å", "a\u0300"],
  c: ["c", "ç", "č", "C"],
  e: ["e", "é", "è", "ê", "ë", "É", "e\u0308"],
  l: ["l", "ł", "Ł", "L"],
  n: ["n", "ñ", "ń"],
  o: ["o", "ó", "ö", "ø", "Ø", "ô", "O"],
  s: ["s", "ś", "š", "ș", "S"],
  u: ["u", "ü", "ú", "ù", "U"],
  z: ["z", "ż", "ž", "Z"],
  "'": ["'", "’", "‘", "ʼ"],
  "-": ["-", "‐", "‑", "–"],
  " ": [" ", "  ", "\u00a0"],
};
const variantOf = (name: string) =>
  fc.tuple(...[...name].map((character) => fc.constantFrom(...(variants[character] ?? [character])))).map((parts) => parts.join(""));

describe("folding names for search", () => {
  it("is idempotent", () => {
    fc.assert(fc.property(schoolName, (name) => foldName(foldName(name)) === foldName(name)));
    fc.assert(fc.property(fc.string({ unit: "grapheme", maxLength: 40 }), (text) => foldName(foldName(text)) === foldName(text)));
  });

  it("a name always finds itself, and each of its words finds it", () => {
    fc.assert(
      fc.property(schoolName, (name) => {
        expect(foldedIncludes(name, foldName(name))).toBe(true);
        for (const word of name.split(/\s+/u)) expect(foldedIncludes(name, foldName(word))).toBe(true);
      }),
    );
  });

  it("accent, case, apostrophe and hyphen variants of a name find each other", () => {
    fc.assert(
      fc.property(
        plainName.chain((name) => fc.tuple(fc.constant(name), variantOf(name), variantOf(name))),
        ([name, one, other]) => {
          expect(foldName(one)).toBe(foldName(name));
          expect(foldedIncludes(one, foldName(other))).toBe(true);
        },
      ),
    );
  });

  it("folds the names of the issue", () => {
    expect(foldName("Zoë")).toBe("zoe");
    expect(foldName("O’Brien")).toBe(foldName("o'brien"));
    expect(foldName("Łukasz")).toBe("lukasz");
    expect(foldName("Søren Straße")).toBe("soren strasse");
    expect(foldName("Æsa Œuvre-Đoković")).toBe("aesa oeuvre-dokovic");
  });
});

describe("sorting names", () => {
  it("sorts by surname, then the whole name, with a collation, not by code point", () => {
    const names = ["Zoë Adams", "Anna Zielińska", "Łukasz Nowak", "Zoë Łukasiewicz", "Oscar Lund", "Ada Lovelace"];
    expect([...names].sort(compareNames)).toEqual(["Zoë Adams", "Ada Lovelace", "Zoë Łukasiewicz", "Oscar Lund", "Łukasz Nowak", "Anna Zielińska"]);
    expect(compareNames("Łukasz", "Zoë")).toBeLessThan(0);
  });

  it("gives a total order: ties (the same name in another case or accent) by id", () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(schoolName, fc.uuid()), { maxLength: 30 }), (rows) => {
        const sorted = sortByName(rows, ([name]) => name, ([, id]) => id);
        const again = sortByName([...rows].reverse(), ([name]) => name, ([, id]) => id);
        expect(again).toEqual(sorted);
      }),
    );
  });
});
