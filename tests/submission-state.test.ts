import { describe, expect, it } from "vitest";
import { type SubmissionFacts, countSubmissionStates, submissionState, submissionStateLabel } from "../lib/rules/submission-state";

const facts = (overrides: Partial<SubmissionFacts>): SubmissionFacts => ({
  status: "absent",
  absence_marked_at: null,
  has_student: true,
  marks_entered: 0,
  ...overrides,
});

describe("one vocabulary of submission states", () => {
  it("tells a student with no scan yet from one a teacher marked absent", () => {
    expect(submissionStateLabel(submissionState(facts({})))).toBe("No scan yet");
    expect(submissionStateLabel(submissionState(facts({ absence_marked_at: new Date() })))).toBe("Absent");
  });

  it("names every contract status in a teacher's words", () => {
    expect(submissionState(facts({ status: "unmatched", has_student: false }))).toBe("needs_student");
    // A scan without a student needs one first, marks or not.
    expect(submissionState(facts({ status: "marking", has_student: false, marks_entered: 2 }))).toBe("needs_student");
    expect(submissionState(facts({ status: "matched" }))).toBe("not_marked");
    // The contract leaves a matched submission matched when marks arrive: it is being marked all the same.
    expect(submissionState(facts({ status: "matched", marks_entered: 1 }))).toBe("being_marked");
    expect(submissionState(facts({ status: "marking", marks_entered: 2 }))).toBe("being_marked");
    expect(submissionState(facts({ status: "complete", marks_entered: 5 }))).toBe("marked");
    expect(submissionStateLabel("being_marked", { marked: 2, of: 5 })).toBe("Being marked (2 of 5)");
    expect(submissionStateLabel("not_marked", { marked: 0, of: 5 })).toBe("Not marked");
  });

  it("counts each state", () => {
    const counts = countSubmissionStates([facts({}), facts({}), facts({ absence_marked_at: "2026-11-24T09:00:00Z" }), facts({ status: "complete" })]);
    expect(counts).toEqual({ no_scan: 2, absent: 1, needs_student: 0, not_marked: 0, being_marked: 0, marked: 1 });
  });
});
