import { describe, expect, it } from "vitest";
import { markSchemeText, structuredScheme, withMarkSchemeText } from "../components/templates/editor-state";

// The demo paper's schemes look like this: imported with the paper, not written in the editor.
const imported = {
  type: "points",
  total: 3,
  answer: "140",
  points: [
    { id: "p1", text: "M1: 560 × 3/8 = 210 walk", marks: 1 },
    { id: "p2", text: "A1: 140", marks: 2 },
  ],
};

describe("mark schemes in the template editor", () => {
  it("shows a structured scheme as its answer and mark points, and its free text as the notes", () => {
    expect(structuredScheme(imported)).toEqual({
      answer: "140",
      points: [
        { text: "M1: 560 × 3/8 = 210 walk", marks: 1 },
        { text: "A1: 140", marks: 2 },
      ],
      other: [],
    });
    // No JSON in the text field: a structured scheme without notes has empty notes.
    expect(markSchemeText(imported)).toBe("");
    expect(markSchemeText({ ...imported, text: "Accept 140.0" })).toBe("Accept 140.0");
  });

  it("lists unknown fields as text, and a plain text scheme has nothing structured", () => {
    expect(structuredScheme({ type: "rubric", levels: ["L1", "L2"] })).toEqual({ answer: null, points: [], other: [["levels", '["L1","L2"]']] });
    expect(structuredScheme({ type: "text", text: "M1 method" })).toBeNull();
    expect(structuredScheme(null)).toBeNull();
  });

  it("edits only the notes of a structured scheme and keeps its points; clearing them removes the field", () => {
    const noted = withMarkSchemeText(imported, "Accept 140.0");
    expect(noted).toEqual({ ...imported, text: "Accept 140.0" });
    expect(withMarkSchemeText(noted, "  ")).toEqual(imported);
  });

  it("a plain scheme is text only, and cleared it is no scheme at all", () => {
    expect(withMarkSchemeText(null, "M1 method")).toEqual({ type: "text", text: "M1 method" });
    expect(withMarkSchemeText({ type: "text", text: "M1 method" }, "")).toBeNull();
  });
});
