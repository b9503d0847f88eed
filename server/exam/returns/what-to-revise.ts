/**
 * What to revise (issue 35, item 3): the specification points where a student lost the most marks on one
 * script. Pure: the read model (student-scripts.ts) gives it the marked questions and names the points.
 *
 * - A question counts toward the point its spec_ref names (the read model passes a part's own reference,
 *   or its question's when the part has none); a question without one counts toward nothing.
 * - A question without a mark yet (awarded null) counts toward nothing: no mark is not a lost mark.
 * - Marks are numeric(8,2): sums are made in hundredths, so 0.1 + 0.2 is 0.3 and ties are ties.
 * - Ranked by marks lost (most first), then by the share of the point's marks lost, then by the
 *   reference (code-point order), so the same marks always give the same list. A point where nothing was
 *   lost is not listed; a point worth zero marks loses nothing.
 */

export interface MarkedQuestion {
  label: string;
  /** The specification point the question assesses, or null. */
  specRef: string | null;
  maxMarks: number;
  awardedMarks: number | null;
}

export interface RevisionPoint {
  spec_ref: string;
  marks_lost: number;
  marks_available: number;
  /** marks_lost / marks_available, 0–1. */
  share_lost: number;
  /** The labels of the questions that assess it, in the order given. */
  questions: string[];
}

const hundredths = (value: number) => Math.round(value * 100);

export function whatToRevise(questions: readonly MarkedQuestion[]): RevisionPoint[] {
  const points = new Map<string, { lost: number; available: number; questions: string[] }>();
  for (const question of questions) {
    const ref = question.specRef?.trim();
    if (!ref || question.awardedMarks === null) continue;
    const available = Math.max(0, hundredths(question.maxMarks));
    const awarded = Math.min(available, Math.max(0, hundredths(question.awardedMarks)));
    const point = points.get(ref) ?? { lost: 0, available: 0, questions: [] };
    point.lost += available - awarded;
    point.available += available;
    point.questions.push(question.label);
    points.set(ref, point);
  }
  return [...points.entries()]
    .filter(([, point]) => point.lost > 0)
    .map(([ref, point]) => ({
      spec_ref: ref,
      marks_lost: point.lost / 100,
      marks_available: point.available / 100,
      share_lost: point.lost / point.available,
      questions: point.questions,
    }))
    .sort((a, b) => b.marks_lost - a.marks_lost || b.share_lost - a.share_lost || (a.spec_ref < b.spec_ref ? -1 : a.spec_ref > b.spec_ref ? 1 : 0));
}
