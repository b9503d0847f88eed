/**
 * Where a submission stands, in the words a teacher reads: the one vocabulary of the batch page, the
 * marking screen, the results page and the CSV. The contract's status values
 * (docs/spec/classroom-api.md "States and transitions": absent, unmatched,
 * matched, marking, complete) stay what the API says; this names them for people. `absent` splits in
 * two: a roster student with no scan yet, and a student a teacher marked absent (absence_marked_at).
 * Pure, with no server imports, so the browser uses it as the server does.
 */

export const submissionStates = ["no_scan", "absent", "needs_student", "not_marked", "being_marked", "marked"] as const;
export type SubmissionState = (typeof submissionStates)[number];

export const submissionStateLabels: Record<SubmissionState, string> = {
  no_scan: "No scan yet",
  absent: "Absent",
  needs_student: "Needs a student",
  not_marked: "Not marked",
  being_marked: "Being marked",
  marked: "Marked",
};

/**
 * What a state needs of a submission: the contract's status, the marked absence, whose it is, and how
 * many questions have a mark (the contract leaves a matched submission `matched` when marks arrive:
 * docs/spec/classroom-api.md "States and transitions").
 */
export interface SubmissionFacts {
  status: "absent" | "unmatched" | "matched" | "marking" | "complete";
  absence_marked_at: Date | string | null;
  /** Whether a student is named on it (anonymous batches hide who, not whether). */
  has_student: boolean;
  marks_entered: number;
}

export function submissionState(submission: SubmissionFacts): SubmissionState {
  // A scan nobody is named on needs a student first, whatever marks it has.
  if (submission.status === "unmatched" || !submission.has_student) return "needs_student";
  switch (submission.status) {
    case "absent":
      return submission.absence_marked_at === null ? "no_scan" : "absent";
    case "matched":
      return submission.marks_entered > 0 ? "being_marked" : "not_marked";
    case "marking":
      return "being_marked";
    case "complete":
      return "marked";
  }
}

/**
 * The label of a state, with how far marking has got where that is what the teacher wants to know:
 * "Being marked (2 of 5)". `progress` counts questions with a mark, of the leaf questions.
 */
export function submissionStateLabel(state: SubmissionState, progress?: { marked: number; of: number }): string {
  const label = submissionStateLabels[state];
  return state === "being_marked" && progress ? `${label} (${progress.marked} of ${progress.of})` : label;
}

export type SubmissionStateCounts = Record<SubmissionState, number>;

/** How many submissions are in each state. */
export function countSubmissionStates(submissions: Iterable<SubmissionFacts>): SubmissionStateCounts {
  const counts = Object.fromEntries(submissionStates.map((state) => [state, 0])) as SubmissionStateCounts;
  for (const submission of submissions) counts[submissionState(submission)] += 1;
  return counts;
}
