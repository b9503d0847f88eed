/** The dictation prompt of the marking screen (components/marking/dictation-prompt.ts). */
import { describe, expect, it } from "vitest";
import { DICTATION_PROMPT_MAX_CHARACTERS, dictationPrompt } from "../components/marking/dictation-prompt";

const scheme = { type: "points", answer: 42, points: [{ id: "a", text: "Chlorophyll absorbs light", marks: 1 }, { id: "b", text: "Glucose  is made\n(photosynthesis)", marks: 2 }], total: 3 };
const rubricItems = [{ text: "Names the stomata" }, { text: "Uses the word  chloroplast" }];
const classNames = ["Siobhán Ní Bhriain", null, "Aoife Byrne", "Tadhg Ó Súilleabháin"];

describe("the dictation prompt", () => {
  it("names the class, the mark scheme and the rubric, with the student being marked last", () => {
    expect(dictationPrompt({ markScheme: scheme, rubricItems, studentName: "Aoife Byrne", classNames, anonymous: false })).toBe(
      "Class: Siobhán Ní Bhriain, Tadhg Ó Súilleabháin. Mark scheme: 42, Chlorophyll absorbs light, Glucose is made (photosynthesis). " +
        "Rubric: Names the stomata, Uses the word chloroplast. Student: Aoife Byrne.",
    );
  });

  it("sends no name at all in an anonymous batch, whatever it is given", () => {
    const prompt = dictationPrompt({ markScheme: scheme, rubricItems, studentName: "Aoife Byrne", classNames, anonymous: true });
    expect(prompt).toBe("Mark scheme: 42, Chlorophyll absorbs light, Glucose is made (photosynthesis). Rubric: Names the stomata, Uses the word chloroplast.");
    for (const name of ["Aoife", "Siobhán", "Tadhg"]) expect(prompt).not.toContain(name);
  });

  it("reads a scheme written in the template editor (its text) and says nothing when there is nothing to say", () => {
    expect(dictationPrompt({ markScheme: { type: "text", text: "Any two of: xylem, phloem" }, rubricItems: [], studentName: null, classNames: [], anonymous: false })).toBe(
      "Mark scheme: Any two of: xylem, phloem.",
    );
    expect(dictationPrompt({ markScheme: null, rubricItems: [], studentName: null, classNames: [null], anonymous: false })).toBe("");
  });

  it("stays within the limit: the student and the rubric first, then as much scheme and class as fits, cut at a word", () => {
    const longScheme = { type: "text", text: Array.from({ length: 200 }, (_, i) => `term${i}`).join(" ") };
    const manyNames = Array.from({ length: 300 }, (_, i) => `Student Number${i}`);
    const prompt = dictationPrompt({ markScheme: longScheme, rubricItems, studentName: "Aoife Byrne", classNames: manyNames, anonymous: false });
    expect(prompt.length).toBeLessThanOrEqual(DICTATION_PROMPT_MAX_CHARACTERS);
    expect(prompt.length).toBeGreaterThan(DICTATION_PROMPT_MAX_CHARACTERS - 20);
    expect(prompt.endsWith("Rubric: Names the stomata, Uses the word chloroplast. Student: Aoife Byrne.")).toBe(true);
    expect(prompt.startsWith("Mark scheme: term0 term1")).toBe(true); // the scheme filled the rest: no room for the class
    expect(prompt).toMatch(/ term\d+\. Rubric/); // cut between words
    for (const limit of [0, 10, 40, 120]) {
      expect(dictationPrompt({ markScheme: longScheme, rubricItems, studentName: "Aoife Byrne", classNames: manyNames, anonymous: false }, limit).length).toBeLessThanOrEqual(limit);
    }
  });

  it("says each word once (the student being marked is in the class too)", () => {
    const prompt = dictationPrompt({ markScheme: null, rubricItems: [{ text: "Aoife byrne" }], studentName: "Aoife Byrne", classNames: ["Aoife Byrne", "aoife byrne"], anonymous: false });
    expect(prompt).toBe("Student: Aoife Byrne.");
  });
});
