import { describe, expect, it } from "vitest";
import { followingChoice, matchesStudentSearch, noStudentChosen, studentSearchNeedle } from "@/components/classes/student-search";

const ada = { id: "a", full_name: "Ada Lovelace", email: "ada@northfield.example" };

describe("choosing a student by search", () => {
  it("matches the name or the email, case and spaces aside; an empty search matches everyone", () => {
    expect(matchesStudentSearch(ada, studentSearchNeedle("  LOVE "))).toBe(true);
    expect(matchesStudentSearch(ada, studentSearchNeedle("northfield"))).toBe(true);
    expect(matchesStudentSearch(ada, studentSearchNeedle("grace"))).toBe(false);
    expect(matchesStudentSearch(ada, studentSearchNeedle(""))).toBe(true);
  });

  it("ignores accents and apostrophe style: zoe finds Zoë, o'brien finds O’Brien, lukasz finds Łukasz", () => {
    const student = (full_name: string) => ({ id: full_name, full_name, email: "x@northfield.example" });
    expect(matchesStudentSearch(student("Zoë Adams"), studentSearchNeedle("zoe"))).toBe(true);
    expect(matchesStudentSearch(student("Siobhán O’Brien"), studentSearchNeedle("O'Brien"))).toBe(true);
    expect(matchesStudentSearch(student("Łukasz Nowak"), studentSearchNeedle("lukasz"))).toBe(true);
    expect(matchesStudentSearch(student("Lukasz Nowak"), studentSearchNeedle("Łuk"))).toBe(true);
  });

  it("keeps a choice that is still shown, else falls to the first shown, else to none", () => {
    const shown = [{ id: "a" }, { id: "b" }];
    expect(followingChoice(shown, "b")).toBe("b");
    expect(followingChoice(shown, "gone")).toBe("a");
    expect(followingChoice([], "a")).toBe("");
  });

  it("says why nothing could be chosen", () => {
    expect(noStudentChosen("zz")).toBe("No student matches this search.");
    expect(noStudentChosen("")).toBe("Choose a student.");
  });
});
