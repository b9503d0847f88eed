import { describe, expect, it } from "vitest";
import {
  commonSpecPrefix,
  effectiveSpecRefs,
  formatMarks,
  formatPercent,
  histogramBands,
  lowestIndex,
  maxTotal,
  mean,
  median,
  questionMeans,
  shownTotal,
  sortRows,
  specPointMeans,
  summarize,
  type ResultRow,
  type ResultsQuestion,
  type TemplateQuestion,
} from "../components/results/results-stats";

// A small paper: question 1 (container) with parts 1a and 1b, question 2 a leaf, question 3 without a maximum.
const questions: ResultsQuestion[] = [
  { id: "q1a", label: "1a", max_marks: 2, order: 2 },
  { id: "q1b", label: "1b", max_marks: 3, order: 3 },
  { id: "q2", label: "2", max_marks: 5, order: 4 },
];
const templateQuestions: TemplateQuestion[] = [
  { id: "q1", parent_id: null, label: "1", spec_ref: "SPEC/A", is_container: true },
  { id: "q1a", parent_id: "q1", label: "1a", spec_ref: "SPEC/A17", is_container: false },
  { id: "q1b", parent_id: "q1", label: "1b", spec_ref: null, is_container: false },
  { id: "q2", parent_id: null, label: "2", spec_ref: "  ", is_container: false },
];

function row(name: string | null, status: ResultRow["status"], marks: Record<string, number | null>, total: number | null, markedAbsent = false): ResultRow {
  return {
    submission_id: `s-${name ?? "unmatched"}`,
    student_id: name ? `u-${name}` : null,
    student_name: name,
    has_student: name !== null,
    script_number: 0,
    status,
    absence_marked_at: markedAbsent ? new Date("2026-11-24T09:00:00Z") : null,
    marks: { q1a: null, q1b: null, q2: null, ...marks },
    total,
  };
}

const ada = row("Ada", "complete", { q1a: 2, q1b: 3, q2: 5 }, 10); // 100 %
const ben = row("Ben", "complete", { q1a: 1, q1b: 1, q2: 2 }, 4); // 40 %
const cai = row("Cai", "marking", { q1a: 0 }, 0); // in progress, a real zero
const dee = row("Dee", "absent", {}, null); // no scan yet
const gus = row("Gus", "absent", {}, null, true); // marked absent by the teacher
const eli = row("Eli", "matched", {}, 0); // scanned, nothing marked: the server says 0
const scan = row(null, "unmatched", { q2: 1 }, 1);
const rows = [dee, ben, scan, eli, cai, ada];

describe("totals and percentages", () => {
  it("shows no total for absent and not-yet-marked scripts, and a real zero for a script marked 0", () => {
    expect(shownTotal(dee, questions)).toBeNull();
    expect(shownTotal(eli, questions)).toBeNull();
    expect(shownTotal(cai, questions)).toBe(0);
    expect(shownTotal(ada, questions)).toBe(10);
  });

  it("adds the maximums without float dust and ignores questions without one", () => {
    expect(maxTotal([...questions, { id: "q3", label: "3", max_marks: null, order: 5 }])).toBe(10);
    expect(maxTotal([{ id: "a", label: "a", max_marks: 0.1, order: 1 }, { id: "b", label: "b", max_marks: 0.2, order: 2 }])).toBe(0.3);
  });

  it("summarizes by state, with mean and median over fully marked scripts only", () => {
    const summary = summarize([...rows, gus], questions);
    expect(summary.counts).toEqual({ marked: 2, being_marked: 1, not_marked: 1, no_scan: 1, absent: 1, needs_student: 1, submissions: 7 });
    expect(summary.maxTotal).toBe(10);
    expect(summary.markedPercentages.sort()).toEqual([100, 40]);
    expect(summary.meanPercent).toBe(70);
    expect(summary.medianPercent).toBe(70);
  });

  it("has no mean or median when nothing is fully marked", () => {
    const summary = summarize([cai, dee], questions);
    expect(summary.meanPercent).toBeNull();
    expect(summary.medianPercent).toBeNull();
    expect(summary.markedPercentages).toEqual([]);
  });
});

describe("mean and median", () => {
  it("are null for no values", () => {
    expect(mean([])).toBeNull();
    expect(median([])).toBeNull();
  });
  it("take the middle value, or the mean of the two middle values", () => {
    expect(median([9, 1, 5])).toBe(5);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(mean([1, 2, 6])).toBe(3);
  });
});

describe("histogramBands", () => {
  it("puts each percentage in its 10-point band, 100 % in the top band, lower bounds included", () => {
    const bands = histogramBands([0, 9.99, 10, 55, 90, 100, 100]);
    expect(bands).toHaveLength(10);
    expect(bands[0]).toEqual({ from: 0, to: 10, count: 2 });
    expect(bands[1]).toEqual({ from: 10, to: 20, count: 1 });
    expect(bands[5]!.count).toBe(1);
    expect(bands[9]).toEqual({ from: 90, to: 100, count: 3 });
    expect(bands.reduce((sum, band) => sum + band.count, 0)).toBe(7);
  });
  it("clamps values outside 0..100 and supports other widths", () => {
    const bands = histogramBands([-3, 120, 30], 25);
    expect(bands.map((band) => [band.from, band.to, band.count])).toEqual([
      [0, 25, 1],
      [25, 50, 1],
      [50, 75, 0],
      [75, 100, 1],
    ]);
  });
  it("gives empty bands for no scripts", () => {
    expect(histogramBands([]).every((band) => band.count === 0)).toBe(true);
  });
});

describe("questionMeans and lowestIndex", () => {
  it("averages every recorded value, scripts in progress included, absent ones having none", () => {
    const means = questionMeans(questions, rows);
    // 1a: Ada 2, Ben 1, Cai 0 → 1 of 2 = 50 %
    expect(means[0]).toMatchObject({ label: "1a", count: 3, meanMarks: 1, meanPercent: 50 });
    // 1b: Ada 3, Ben 1 → 2 of 3
    expect(means[1]!.count).toBe(2);
    expect(means[1]!.meanPercent).toBeCloseTo(66.667, 2);
    // 2: Ada 5, Ben 2, the unmatched scan 1 → 8/3 of 5
    expect(means[2]!.meanPercent).toBeCloseTo(53.333, 2);
  });
  it("has no percentage for a question nobody has marked or without a maximum", () => {
    const means = questionMeans([{ id: "q9", label: "9", max_marks: null, order: 9 }, ...questions], [dee, eli]);
    expect(means.map((m) => m.meanPercent)).toEqual([null, null, null, null]);
    expect(means[1]!.count).toBe(0);
  });
  it("finds the lowest value, skipping gaps, first of equals", () => {
    expect(lowestIndex([50, null, 20, 20, 80])).toBe(2);
    expect(lowestIndex([null, null])).toBe(-1);
    expect(lowestIndex([])).toBe(-1);
  });
});

describe("specification points", () => {
  it("takes a question's own spec_ref, else its container's, and treats blank as none", () => {
    const refs = effectiveSpecRefs(templateQuestions);
    expect(refs.get("q1a")).toBe("SPEC/A17");
    expect(refs.get("q1b")).toBe("SPEC/A");
    expect(refs.get("q2")).toBeNull();
  });

  it("does not loop on a malformed tree", () => {
    const refs = effectiveSpecRefs([
      { id: "x", parent_id: "y", label: "x", spec_ref: null, is_container: false },
      { id: "y", parent_id: "x", label: "y", spec_ref: null, is_container: true },
    ]);
    expect(refs.get("x")).toBeNull();
  });

  it("weights each recorded mark by its maximum, in natural order, questions without a point last", () => {
    const more: ResultsQuestion[] = [...questions, { id: "q4", label: "4", max_marks: 4, order: 5 }, { id: "q5", label: "5", max_marks: null, order: 6 }];
    const tree: TemplateQuestion[] = [
      ...templateQuestions,
      { id: "q4", parent_id: null, label: "4", spec_ref: "SPEC/A4", is_container: false },
      { id: "q5", parent_id: null, label: "5", spec_ref: "SPEC/Z1", is_container: false },
    ];
    const points = specPointMeans(more, tree, [ada, ben, { ...cai, marks: { ...cai.marks, q4: 1 } }]);
    expect(points.map((p) => p.specRef)).toEqual(["SPEC/A", "SPEC/A4", "SPEC/A17", null]);
    // SPEC/A = 1b: Ada 3/3, Ben 1/3 → 4 of 6
    expect(points[0]).toMatchObject({ questionLabels: ["1b"], count: 2, awarded: 4, possible: 6 });
    expect(points[0]!.meanPercent).toBeCloseTo(66.667, 2);
    // SPEC/A4 = question 4: only Cai's 1 of 4
    expect(points[1]).toMatchObject({ count: 1, awarded: 1, possible: 4, meanPercent: 25 });
    // SPEC/A17 = 1a: 2 + 1 + 0 of 6
    expect(points[2]).toMatchObject({ awarded: 3, possible: 6, meanPercent: 50 });
    // No point: question 2, 5 + 2 of 10
    expect(points[3]).toMatchObject({ questionLabels: ["2"], meanPercent: 70 });
    // Question 5 has no maximum: left out, so SPEC/Z1 has no group at all.
    expect(points.some((p) => p.specRef === "SPEC/Z1")).toBe(false);
  });

  it("keeps a point whose questions nobody has marked, without a percentage", () => {
    const points = specPointMeans(questions, templateQuestions, [dee]);
    expect(points.every((p) => p.meanPercent === null && p.count === 0)).toBe(true);
    expect(points).toHaveLength(3);
  });

  it("finds the shared specification prefix up to the last slash", () => {
    expect(commonSpecPrefix(["NAB-GCSE-MATH-2025/A17", "NAB-GCSE-MATH-2025/G20", "NAB-GCSE-MATH-2025/A"])).toBe("NAB-GCSE-MATH-2025/");
    expect(commonSpecPrefix(["AQA/8300/A1", "AQA/8300/A2"])).toBe("AQA/8300/");
    expect(commonSpecPrefix(["A1", "A2"])).toBe("");
    expect(commonSpecPrefix(["X/A1", "Y/A1"])).toBe("");
    expect(commonSpecPrefix(["X/", "X/A"])).toBe("");
    expect(commonSpecPrefix([])).toBe("");
  });
});

describe("sortRows", () => {
  const names = (sorted: ResultRow[]) => sorted.map((r) => r.student_name);

  it("sorts by name either way, unmatched scans always last", () => {
    expect(names(sortRows(rows, questions, { by: "name" }, "ascending"))).toEqual(["Ada", "Ben", "Cai", "Dee", "Eli", null]);
    expect(names(sortRows(rows, questions, { by: "name" }, "descending"))).toEqual(["Eli", "Dee", "Cai", "Ben", "Ada", null]);
  });

  it("sorts by total with not-yet-marked scripts, then absent students, last in both directions", () => {
    expect(names(sortRows(rows, questions, { by: "total" }, "descending"))).toEqual(["Ada", "Ben", null, "Cai", "Eli", "Dee"]);
    expect(names(sortRows(rows, questions, { by: "total" }, "ascending"))).toEqual(["Cai", null, "Ben", "Ada", "Eli", "Dee"]);
  });

  it("sorts by one question's mark, unmarked cells last, equal marks by name", () => {
    const tied = row("Abe", "complete", { q1a: 1, q1b: 0, q2: 0 }, 1);
    expect(names(sortRows([...rows, tied], questions, { by: "question", questionId: "q1a" }, "descending"))).toEqual(["Ada", "Abe", "Ben", "Cai", "Eli", null, "Dee"]);
    expect(names(sortRows(rows, questions, { by: "question", questionId: "q2" }, "ascending")).slice(0, 3)).toEqual([null, "Ben", "Ada"]);
  });

  it("does not change the rows it is given", () => {
    const before = names(rows);
    sortRows(rows, questions, { by: "total" }, "descending");
    expect(names(rows)).toEqual(before);
  });
});

describe("formatting", () => {
  it("shows marks with at most two decimals and whole or one-decimal percentages", () => {
    expect(formatMarks(6)).toBe("6");
    expect(formatMarks(2.5)).toBe("2.5");
    expect(formatMarks(1234.567)).toBe("1,234.57");
    expect(formatPercent(40)).toBe("40%");
    expect(formatPercent(66.6667)).toBe("67%");
    expect(formatPercent(66.6667, true)).toBe("66.7%");
  });
});
