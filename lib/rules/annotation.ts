import { z } from "zod";
import { integer, text } from "./input-rules";

/**
 * One annotation as a client sends it (issue 35, item 1): a vector shape over one page of a script's
 * scan, in page-relative coordinates (0–1 on both axes, as response areas). The geometry is said by the
 * kind: an anchor point for a tick, a cross, a text comment and a stamp; a rectangle inside the page for
 * a highlight; a stroke of 2 to 4000 points, each [x, y, pressure], for the pen. Every object is strict
 * (an unknown field is refused), every number finite. Free of server code, so the marking screen checks
 * a shape with the same rules before it queues it. What needs the database (the page within the
 * script's pages, the question and rubric item of the batch's paper) is checked by
 * server/exam/returns/annotations.ts.
 */

export const annotationKinds = ["tick", "cross", "text", "pen", "highlight", "stamp"] as const;
export const annotationLayers = ["marking", "second_marking"] as const;
export type AnnotationLayer = (typeof annotationLayers)[number];

/** A pen stroke's bounds: two points make a line; 4000 is about a minute of drawing at 60 samples a second. */
const MIN_STROKE_POINTS = 2;
const MAX_STROKE_POINTS = 4000;
export const MAX_COMMENT_LENGTH = 2000;
/** Pages a script may have at most (a template's page count has the same bound). */
const MAX_SCRIPT_PAGES = 2000;

/**
 * Decimals kept of a position (1/100000 of an A4 page is 3 thousandths of a millimetre) and of a pen's
 * pressure. A pointer gives full doubles (17 digits): 4000 such points would pass the database's bound on
 * a shape (exam_annotations_geometry_bounded, 256 kB); rounded, a stroke of 4000 points is about 205 kB.
 */
const POSITION_DECIMALS = 5;
const PRESSURE_DECIMALS = 3;
const rounded = (decimals: number) => (value: number) => Math.round(value * 10 ** decimals) / 10 ** decimals;

/** A fraction of the page (0 is its left or top edge, 1 its right or bottom one). */
const fractionOf = (what: string) =>
  z
    .number({ error: `must be a number from 0 to 1 (a fraction of the page's ${what})` })
    .min(0, `must be from 0 to 1 (a fraction of the page's ${what})`)
    .max(1, `must be from 0 to 1 (a fraction of the page's ${what})`);
/** The same, rounded to POSITION_DECIMALS. */
const fraction = (what: string) => fractionOf(what).transform(rounded(POSITION_DECIMALS));

/** Where a tick, a cross, a comment or a stamp is anchored. */
const annotationPoint = z.strictObject({ x: fraction("width"), y: fraction("height") });

/** A highlight: a rectangle that lies inside the page. */
const annotationRectangle = z
  .strictObject({
    x: fraction("width"),
    y: fraction("height"),
    width: fractionOf("width").positive("must be more than 0").transform(rounded(POSITION_DECIMALS)),
    height: fractionOf("height").positive("must be more than 0").transform(rounded(POSITION_DECIMALS)),
  })
  .check((context) => {
    const { x, y, width, height } = context.value;
    // A margin for the rounding of each (0.123455 and 0.876545 become 0.12346 and 0.87655).
    const margin = 1.5 * 10 ** -POSITION_DECIMALS;
    if (x + width > 1 + margin) context.issues.push({ code: "custom", message: "the highlight must end inside the page (x + width at most 1)", input: context.value, path: ["width"] });
    if (y + height > 1 + margin) context.issues.push({ code: "custom", message: "the highlight must end inside the page (y + height at most 1)", input: context.value, path: ["height"] });
  });

/** One sample of a pen stroke: [x, y, pressure from 0 to 1]. */
const strokePoint = z.tuple([fraction("width"), fraction("height"), z.number({ error: "pressure must be a number from 0 to 1" }).min(0, "pressure must be from 0 to 1").max(1, "pressure must be from 0 to 1").transform(rounded(PRESSURE_DECIMALS))], {
  error: "each point must be [x, y, pressure]",
});

/** A freehand stroke. */
const annotationStroke = z.strictObject({
  points: z
    .array(strokePoint, { error: "must be a list of [x, y, pressure] points" })
    .min(MIN_STROKE_POINTS, `a stroke needs at least ${MIN_STROKE_POINTS} points`)
    .max(MAX_STROKE_POINTS, `a stroke has at most ${MAX_STROKE_POINTS} points; split a longer one`),
});

/** The geometry of any kind as a stored annotation holds it (already checked and rounded: a reply's schema). */
const storedFraction = z.number().min(0).max(1);
export const annotationGeometry = z.union([
  z.strictObject({ points: z.array(z.tuple([storedFraction, storedFraction, storedFraction])).min(MIN_STROKE_POINTS).max(MAX_STROKE_POINTS) }),
  z.strictObject({ x: storedFraction, y: storedFraction, width: storedFraction.positive(), height: storedFraction.positive() }),
  z.strictObject({ x: storedFraction, y: storedFraction }),
]);

const questionId = z.uuid("must be a question id");
const rubricItemId = z.uuid("must be a rubric item id");
/** Text on a shape that carries none: refused with a sentence rather than as an unknown field. */
const noText = z.never({ error: "only a text comment or a stamp carries text" }).optional();

/** What every kind shares. */
const common = {
  submission_id: z.uuid("must be a submission id"),
  page: integer({ min: 1, max: MAX_SCRIPT_PAGES }),
  layer: z.enum(annotationLayers, { error: "must be marking or second_marking" }).optional(),
  question_id: questionId.optional(),
  rubric_item_id: rubricItemId.optional(),
};

function kindsWith<Extra extends z.core.$ZodLooseShape>(extra: Extra) {
  return z.discriminatedUnion(
    "kind",
    [
      z.strictObject({ ...extra, ...common, kind: z.literal("tick"), geometry: annotationPoint, text: noText }),
      z.strictObject({ ...extra, ...common, kind: z.literal("cross"), geometry: annotationPoint, text: noText }),
      z.strictObject({
        ...extra,
        ...common,
        kind: z.literal("text"),
        geometry: annotationPoint,
        text: text(MAX_COMMENT_LENGTH, "a text comment needs its words").trim().min(1, "a text comment needs its words"),
      }),
      z.strictObject({ ...extra, ...common, kind: z.literal("pen"), geometry: annotationStroke, text: noText }),
      z.strictObject({ ...extra, ...common, kind: z.literal("highlight"), geometry: annotationRectangle, text: noText }),
      // The label is the rubric item's text as it read when stamped; left out, the item's text is taken.
      z.strictObject({
        ...extra,
        ...common,
        kind: z.literal("stamp"),
        geometry: annotationPoint,
        rubric_item_id: z.uuid({ error: (issue) => (issue.input === undefined ? "a stamp names the rubric item it applies" : "must be a rubric item id") }),
        text: text(MAX_COMMENT_LENGTH).trim().min(1, "a stamp's label must not be blank").optional(),
      }),
    ],
    { error: `must be one of: ${annotationKinds.join(", ")}` },
  );
}

/** The body of PUT /api/exam/annotations/{annotation_id}: one shape, its id in the path. */
export const annotationBody = kindsWith({});
/** One annotation with its client-owned id, as the marking screen keeps it in its queue of drafts. */
export const annotationSchema = kindsWith({ id: z.uuid("must be an annotation id") });

const kindInWords: Record<(typeof annotationKinds)[number], string> = { tick: "Tick", cross: "Cross", text: "Comment", pen: "Pen mark", highlight: "Highlight", stamp: "Stamp" };

/**
 * An annotation in words, its text alternative wherever it is shown (the marking screen, the student's
 * view, the marked PDF's reader): "Tick on question 3b", "Comment on page 2: Show your working".
 */
export function annotationInWords(annotation: { kind: (typeof annotationKinds)[number]; text?: string | null; page: number }, questionLabel: string | undefined): string {
  const where = questionLabel ? `on question ${questionLabel}` : `on page ${annotation.page}`;
  const words = annotation.text?.trim();
  return words && (annotation.kind === "text" || annotation.kind === "stamp") ? `${kindInWords[annotation.kind]} ${where}: ${words}` : `${kindInWords[annotation.kind]} ${where}`;
}
