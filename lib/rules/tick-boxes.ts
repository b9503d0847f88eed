import { z } from "zod";

/**
 * Tick boxes of a "Multiple choice" response area, and the multiple-choice mark scheme. A box is a
 * rectangle in page fractions of the TEMPLATE page (0–1, origin top-left), as response areas are, with
 * its label (A–Z, unique in its area) and the shape printed on the paper. Shared by the server (the
 * canvas save checks them, naming the question) and the template editor (the same messages before
 * saving). Docs: docs/decisions/exam-marking.md, "tick boxes in the template".
 */

const TICK_BOX_SHAPES = ["square", "round"] as const;
type TickBoxShape = (typeof TICK_BOX_SHAPES)[number];

export interface TickBox {
  label: string;
  x: number;
  y: number;
  width: number;
  height: number;
  shape: TickBoxShape;
}

/** An area is read for its ticks when it holds boxes; any other response area is read for writing (an empty list is no boxes). */
export function hasTickBoxes<A extends { tick_boxes?: readonly TickBox[] | null }>(area: A): area is A & { tick_boxes: TickBox[] } {
  return (area.tick_boxes?.length ?? 0) > 0;
}

/** At most one box per letter of the alphabet in an area. */
export const MAX_TICK_BOXES = 26;
/**
 * A box's sides, as page fractions: at least 0.004 (under a millimetre on A4 is no box anyone can
 * tick) and at most 0.1 (21 mm across an A4 page: a tick box is 3–12 mm; larger is an answer box).
 */
const TICK_BOX_MIN_SIDE = 0.004;
const TICK_BOX_MAX_SIDE = 0.1;

export const TICK_BOX_LABELS = Array.from({ length: MAX_TICK_BOXES }, (_, index) => String.fromCharCode(65 + index));

const label = z.string({ error: "a box's label is one capital letter, A to Z" }).regex(/^[A-Z]$/, "a box's label is one capital letter, A to Z");
// zod's numbers refuse NaN and the infinities already.
const fraction = (name: string) =>
  z
    .number({ error: `${name} must be a number` })
    .min(0, `${name} must be between 0 and 1 (a share of the page)`)
    .max(1, `${name} must be between 0 and 1 (a share of the page)`);
const sideRule = (name: string) => `${name} must be between ${TICK_BOX_MIN_SIDE} and ${TICK_BOX_MAX_SIDE} of the page (a tick box is a few millimetres across)`;
const side = (name: string) => z.number({ error: `${name} must be a number` }).min(TICK_BOX_MIN_SIDE, sideRule(name)).max(TICK_BOX_MAX_SIDE, sideRule(name));

export const tickBoxSchema = z
  .strictObject({
    label,
    x: fraction("x"),
    y: fraction("y"),
    width: side("width"),
    height: side("height"),
    shape: z.enum(TICK_BOX_SHAPES, { error: "shape must be square or round" }),
  })
  .refine((box) => box.x + box.width <= 1 + 1e-9 && box.y + box.height <= 1 + 1e-9, "the box must lie inside the page (x + width ≤ 1, y + height ≤ 1)")
  .describe("A tick box: label A–Z, page-relative rectangle (0–1, origin top-left) of the template page, and its printed shape");

export const tickBoxesSchema = z
  .array(tickBoxSchema)
  .max(MAX_TICK_BOXES, `an area holds at most ${MAX_TICK_BOXES} tick boxes (A to Z)`)
  .superRefine((boxes, context) => {
    const seen = new Set<string>();
    boxes.forEach((box, index) => {
      if (seen.has(box.label)) context.addIssue({ code: "custom", message: `the label ${box.label} is used by two boxes of this area`, path: [index, "label"] });
      seen.add(box.label);
    });
  })
  .describe("The tick boxes printed in a Multiple choice area (null for a written area)");

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A little slack for rounding (page fractions are kept to 4 decimals by the editor). */
const SLACK = 1e-4;

/** The first box of `boxes` that does not lie inside its area, with the sentence for the teacher; null when all do. */
export function tickBoxOutsideArea(boxes: readonly TickBox[], area: Rect): { index: number; message: string } | null {
  const index = boxes.findIndex(
    (box) => box.x < area.x - SLACK || box.y < area.y - SLACK || box.x + box.width > area.x + area.width + SLACK || box.y + box.height > area.y + area.height + SLACK,
  );
  return index < 0 ? null : { index, message: `tick box ${boxes[index]!.label} lies outside its answer area: move it inside, or make the area larger` };
}

// ── The multiple-choice mark scheme ─────────────────────────────────────────────────────────────

export const MULTIPLE_CHOICE = "multiple_choice";

const multipleChoiceSchemeSchema = z
  .strictObject({
    type: z.literal(MULTIPLE_CHOICE),
    correct: z
      .array(label, { error: "correct must be a list of box labels" })
      .max(MAX_TICK_BOXES, `at most ${MAX_TICK_BOXES} boxes can be right`)
      .refine((labels) => new Set(labels).size === labels.length, "a right box is listed twice"),
    allow_multiple: z.boolean({ error: "allow_multiple must be true or false" }),
    /** Notes for markers, as any mark scheme may carry. */
    text: z.string().max(20_000).optional(),
  })
  .refine((scheme) => scheme.allow_multiple || scheme.correct.length <= 1, {
    message: "only one box can be right unless more than one tick is allowed",
    path: ["correct"],
  });

export type MultipleChoiceScheme = z.output<typeof multipleChoiceSchemeSchema>;

export const isMultipleChoiceScheme = (scheme: { type: string } | null | undefined): boolean => scheme?.type === MULTIPLE_CHOICE;

/**
 * What is wrong with a question's multiple-choice scheme, as a sentence for the teacher (null: nothing):
 * its shape, and right answers that are not boxes of the question's areas.
 */
export function multipleChoiceFault(scheme: { type: string; [key: string]: unknown }, boxLabels: ReadonlySet<string>): string | null {
  const parsed = multipleChoiceSchemeSchema.safeParse(scheme);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.length ? `${issue.path.join(".")}: ` : "";
    return issue.code === "unrecognized_keys" ? `the multiple-choice scheme has fields it does not use (${issue.keys.join(", ")})` : `${field}${issue.message}`;
  }
  const missing = parsed.data.correct.filter((right) => !boxLabels.has(right));
  if (missing.length === 0) return null;
  const boxes = [...boxLabels].sort();
  return `the right answer ${missing.join(" and ")} ${missing.length === 1 ? "is not a tick box" : "are not tick boxes"} of its areas (${boxes.length ? `its boxes are ${boxes.join(", ")}` : "it has no tick boxes yet"})`;
}

/**
 * The marks of a multiple-choice answer: the question's maximum when the ticked boxes are exactly the
 * right ones, 0 otherwise (no partial credit, also when more than one tick is allowed: a ticked wrong
 * box or a missed right one is a wrong answer, as exam boards mark them). None ticked is 0.
 */
export function multipleChoiceMarks(scheme: Pick<MultipleChoiceScheme, "correct">, maxMarks: number, ticked: readonly string[]): number {
  const right = new Set(scheme.correct);
  const answer = new Set(ticked);
  if (right.size === 0 || answer.size !== right.size) return 0;
  return [...answer].every((tick) => right.has(tick)) ? maxMarks : 0;
}

/** The first multiple-choice question without a right answer (a Ready template can be marked from the ticks), or null. */
export function multipleChoiceWithoutAnswer<Question extends { label: string; is_container: boolean; mark_scheme: { type: string; [key: string]: unknown } | null }>(
  questions: readonly Question[],
): Question | null {
  return (
    questions.find(
      (question) => !question.is_container && isMultipleChoiceScheme(question.mark_scheme) && !(Array.isArray(question.mark_scheme!.correct) && question.mark_scheme!.correct.length > 0),
    ) ?? null
  );
}

export const readyWithoutRightAnswer = (label: string) => `Question ${label}: choose its right tick box before the template is Ready`;
