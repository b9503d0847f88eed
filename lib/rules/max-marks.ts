/**
 * The maximum-marks rule, in one place for the server (canvas save, mark-scheme edit) and the editor's
 * field. A markable part is worth 0.5 to 500 marks with at most two decimals (marks are numeric(8, 2));
 * it may have none yet while the template is being drafted. A question with parts is worth the total
 * of its parts, or has none.
 */

export const MAX_MARKS_MIN = 0.5;
export const MAX_MARKS_MAX = 500;

/** The rule as said to a teacher, after "maximum marks". */
export const MAX_MARKS_RULE = `must be between ${MAX_MARKS_MIN} and ${MAX_MARKS_MAX}, with at most two decimals`;

/** What is wrong with `value` as a markable part's maximum, or null. */
export function maxMarksProblem(value: number): string | null {
  if (!Number.isFinite(value) || value < MAX_MARKS_MIN || value > MAX_MARKS_MAX) return `must be between ${MAX_MARKS_MIN} and ${MAX_MARKS_MAX}`;
  if (Number(value.toFixed(2)) !== value) return "must have at most two decimals";
  return null;
}

/** Plain decimal digits only: no exponent (1e3), sign, spaces inside or thousands separators. */
const typedNumber = /^\d+(\.\d+)?$/;

/**
 * A maximum as typed in the editor: empty is "none yet"; otherwise a plain number within the rule.
 * `1e3`, `-2` and `0` are refused with a reason, never turned into another number.
 */
export function parseMaxMarks(typed: string): { value: number | null } | { error: string } {
  const text = typed.trim();
  if (text === "") return { value: null };
  if (!typedNumber.test(text)) return { error: "Maximum marks must be a number such as 2 or 1.5." };
  const value = Number(text);
  const problem = maxMarksProblem(value);
  return problem ? { error: `Maximum marks ${problem}.` } : { value };
}

interface MarkedQuestion {
  id: string;
  parent_id: string | null;
  max_marks: number | null;
  is_container: boolean;
}

/** The total of a container's markable parts, at any depth (a part without a maximum counts 0). */
export function partsTotal(questions: readonly MarkedQuestion[], containerId: string): number {
  const key = containerId.toLowerCase();
  const children = questions.filter((question) => question.parent_id?.toLowerCase() === key);
  const cents = children.reduce(
    (sum, child) => sum + Math.round((child.is_container ? partsTotal(questions, child.id) : (child.max_marks ?? 0)) * 100),
    0,
  );
  return cents / 100;
}

/**
 * The first question whose maximum breaks the rule, with the message a teacher reads
 * ("Question 3b: maximum marks must be between 0.5 and 500"), or null. Parts come first: a wrong
 * part also makes its container's total wrong, and the part is what to fix.
 */
export function maxMarksFault<Question extends MarkedQuestion & { label: string }>(
  questions: readonly Question[],
): { index: number; message: string } | null {
  for (const [index, question] of questions.entries()) {
    if (question.max_marks === null || question.is_container) continue;
    const problem = maxMarksProblem(question.max_marks);
    if (problem) return { index, message: `Question ${question.label}: maximum marks ${problem}` };
  }
  for (const [index, question] of questions.entries()) {
    if (question.max_marks === null || !question.is_container) continue;
    const total = partsTotal(questions, question.id);
    if (question.max_marks !== total) {
      return { index, message: `Question ${question.label}: maximum marks of a question with parts must be the total of its parts (${total}), or none` };
    }
  }
  return null;
}

/**
 * The first markable part without a maximum, or null. A template may be drafted with parts whose
 * maximum is not set yet (a new question starts empty, never at a guessed 1); it is Ready only when
 * every part has one, or its marks and totals would be out of nothing.
 */
export function partWithoutMaxMarks<Question extends MarkedQuestion & { label: string }>(questions: readonly Question[]): Question | null {
  return questions.find((question) => !question.is_container && question.max_marks === null) ?? null;
}

/** What a teacher reads when Ready is refused for `label`'s missing maximum. */
export const readyWithoutMaxMarks = (label: string) => `Question ${label}: maximum marks are required before the template is Ready`;
