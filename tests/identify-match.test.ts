import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { nameFits, rankForIdentify } from "../components/batches/identify/identify-match";

const roster = [
  { id: "1", name: "Ada Lovelace", identified: false },
  { id: "2", name: "Alan Turing", identified: true },
  { id: "3", name: "Zoë O'Brien-Lovell", identified: false },
  { id: "4", name: "Lovisa Adams", identified: false },
];

describe("finding a student by the first letters of their name", () => {
  it("matches the start of any word of the name, in any order, ignoring case and accents", () => {
    expect(nameFits("Ada Lovelace", "lov")).toBe(true);
    expect(nameFits("Ada Lovelace", "LOVELACE ada")).toBe(true);
    expect(nameFits("Ada Lovelace", "ove")).toBe(false);
    expect(nameFits("Zoë O'Brien-Lovell", "zoe lov")).toBe(true);
    // Two words typed need two different words of the name.
    expect(nameFits("Ada Lovelace", "a a")).toBe(false);
  });

  it("ignores apostrophe style and letters that have no accent to strip (Ł, Ø, ß)", () => {
    expect(nameFits("Siobhán O’Brien", "o'brien")).toBe(true);
    expect(nameFits("Siobhan O'Brien", "o’bri sio")).toBe(true);
    expect(nameFits("Łukasz Nowak", "lukasz")).toBe(true);
    expect(nameFits("Søren Weiß", "soren weiss")).toBe(true);
    expect(nameFits("Lukasz Nowak", "łuk")).toBe(true);
  });

  it("puts students still without a scan first, then a forename that fits, then the roster order", () => {
    expect(rankForIdentify(roster, "a").map((s) => s.id)).toEqual(["1", "4", "2"]);
    expect(rankForIdentify(roster, "lov").map((s) => s.id)).toEqual(["4", "1", "3"]);
    expect(rankForIdentify(roster, "").map((s) => s.id)).toEqual(["1", "3", "4", "2"]);
  });

  it("always finds a student by their full name, typed any way round", () => {
    fc.assert(
      fc.property(fc.array(fc.string({ unit: fc.constantFrom(..."abcdéfgh"), minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 }), (parts) => {
        const name = parts.join(" ");
        expect(nameFits(name, [...parts].reverse().join(" ").toUpperCase())).toBe(true);
      }),
    );
  });
});
