import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_SCHEME_CHARS, labelKey, parseLabel, readSchemeText } from "../server/exam/mark-scheme/read-scheme";
import { fuzzSettings } from "./support/hostile-input";
import { type GeneratedScheme, type LabelStyle, type SchemeLayout, markScheme, paperParts } from "./support/mark-schemes";

/** What the reader gave, per label: items' text and points (the truth's shape). */
const readBack = (scheme: GeneratedScheme, known?: Set<string>) =>
  Object.fromEntries(readSchemeText(scheme.text, known).questions.map((question) => [question.label, question.items.map(({ text, points }) => ({ text, points }))]));

describe("the mark-scheme reader (issue 37, item 3)", () => {
  it("reads the labels schools print, one canonical form", () => {
    for (const [printed, canonical] of [
      ["1", "1"],
      ["3(a)", "3(a)"],
      ["3(b)(i)", "3(b)(i)"],
      ["3 a", "3(a)"],
      ["3ai", "3(a)(i)"],
      ["3a(ii)", "3(a)(ii)"],
      ["3 b iv", "3(b)(iv)"],
      ["Q3(a)", "3(a)"],
      ["Question 12 (c)", "12(c)"],
      ["3i", "3(i)"],
    ]) {
      expect(labelKey(printed!), printed).toBe(canonical);
    }
    for (const notLabel of ["2 marks for x", "2x = 6", "3 apples", "M1 for", "x = 3"]) expect(labelKey(notLabel), notLabel).toBeNull();
    expect(parseLabel("2x = 6")).toBeNull();
    expect(parseLabel("2 marks for units")).toBeNull();
  });

  it("reads codes, counted marks and bracketed marks into items worth their marks; a method mark says so; totals that disagree are said", () => {
    const reading = readSchemeText(
      [
        "Question | Answer | Marks | Guidance",
        "1 | 24 | B1 |",
        "2",
        "M1 for 2x = 6",
        "A1 x = 3",
        "3(a)  correct units (1)",
        "1 mark for showing working",
        "3 b i\tenergy transferred\tB2\tallow heat",
        "3bii",
        "2 marks: any two of",
        "Total for Question 3 is 7 marks",
        "4ai x = 3 A1ft",
      ].join("\n"),
    );
    expect(reading.questions.map((question) => [question.label, question.items.map((item) => [item.text, item.points, item.kind])])).toEqual([
      ["1", [["B1 24", 1, "independent"]]],
      ["2", [["M1 (method) 2x = 6", 1, "method"], ["A1 x = 3", 1, "accuracy"]]],
      ["3(a)", [["correct units", 1, "mark"], ["showing working", 1, "mark"]]],
      ["3(b)(i)", [["B2 energy transferred (allow heat)", 2, "independent"]]],
      ["3(b)(ii)", [["any two of", 2, "mark"]]],
      ["4(a)(i)", [["A1ft x = 3", 1, "accuracy"]]],
    ]);
    expect(reading.warnings).toEqual(["3: the items add up to 6, the mark scheme's total says 7"]);
  });

  it("reads every generated scheme (every layout and label style) back equal to its truth", () => {
    const layouts: SchemeLayout[] = ["table", "lines", "inline"];
    const styles: LabelStyle[] = ["brackets", "spaced", "joined", "mixed"];
    let schemes = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const parts = paperParts(seed);
      const scheme = markScheme(parts, seed, { layout: layouts[seed % 3], labelStyle: styles[Math.floor(seed / 3) % 4] });
      const known = new Set(parts.map((part) => part.label));
      expect(readBack(scheme, known), `seed ${seed} (${scheme.layout}, ${scheme.labelStyle}):\n${scheme.text}`).toEqual(scheme.truth);
      expect(readSchemeText(scheme.text, known).warnings, `seed ${seed}`).toEqual([]);
      schemes++;
    }
    expect(schemes).toBe(60);
  });

  it("never throws on text of any unicode, and gives items only with marks that are numbers", () => {
    const { seed, cases } = fuzzSettings(300);
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: "grapheme", maxLength: 400 }), fc.string({ unit: "binary", maxLength: 400 }), fc.array(fc.constantFrom("1", "3(a)", " M1 ", "A1", "(1)", "|", "\t", "\n", "Total", " 2 marks", "x", "é", "\u0000", "\u202e"), { maxLength: 80 }).map((pieces) => pieces.join(""))), (text) => {
        const reading = readSchemeText(text);
        for (const question of reading.questions) {
          expect(question.items.length).toBeLessThanOrEqual(50);
          for (const item of question.items) {
            expect(Number.isFinite(item.points)).toBe(true);
            expect(item.text.length).toBeGreaterThan(0);
            expect(item.text.length).toBeLessThanOrEqual(500);
          }
        }
        for (const warning of reading.warnings) expect(warning).toMatch(/^[\p{L}\p{N}(]/u);
      }),
      { seed, numRuns: cases },
    );
  });

  it("refuses text beyond the limit with a sentence", () => {
    expect(() => readSchemeText("1 M1 x\n".repeat(MAX_SCHEME_CHARS / 6))).toThrow(/longer than 200,000 characters: paste it a few questions at a time/);
  });
});
