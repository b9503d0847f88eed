import { z } from "zod";
import { integer, storableJsonObject, text } from "../../lib/rules/input-rules";
import { AppError } from "../errors";
import { MAX_MARKS_RULE, maxMarksFault } from "../../lib/rules/max-marks";
import { type TickBox, isMultipleChoiceScheme, multipleChoiceFault, tickBoxOutsideArea, tickBoxesSchema } from "../../lib/rules/tick-boxes";

/**
 * The canvas of a template: questions (containers and leaf parts, flat with parent_id), response
 * areas and question boundaries. GET of one template returns these arrays and PUT takes them back.
 * Rectangles are page-relative: x, y, width, height in 0–1, origin at the top-left of the page.
 */

const markScheme = storableJsonObject({ type: text(100, "mark_scheme.type is required").min(1, "mark_scheme.type is required") });

export const questionPayload = z.object({
  id: z.uuid("id must be a UUID"),
  parent_id: z.uuid("parent_id must be a UUID").nullable().default(null),
  label: text(100).trim().min(1, "label is required"),
  order: integer({ min: 0 }).default(0),
  // The range is checked by validateCanvas (maxMarksFault), whose message names the question's label.
  max_marks: z
    .number({ error: "must be a number" })
    .nullable()
    .default(null)
    .describe(`A markable part's maximum ${MAX_MARKS_RULE}, or null (not set yet); a question with parts: the total of its parts, or null`),
  answer_type: text(100).nullable().default(null),
  mark_scheme: markScheme.nullable().default(null),
  spec_ref: text(200).nullable().default(null),
  is_container: z.boolean().default(false),
});

const unit = z.number().min(0).max(1);

export const responseAreaPayload = z.object({
  id: z.uuid("id must be a UUID"),
  question_id: z.uuid("question_id must be a UUID"),
  page: integer({ min: 1 }),
  kind: z.enum(["response", "context"]).default("response"),
  response_form: text(100).nullable().default(null),
  x: unit,
  y: unit,
  width: unit,
  height: unit,
  // An addition to the contract's fields (docs/decisions/exam-marking.md, "tick boxes in the template"): a client that never sends it saves a written area.
  tick_boxes: tickBoxesSchema.nullable().default(null),
});

/** Where students write their name on the paper (page-relative): a template field, not a question's area. */
export const nameBoxPayload = z
  .object({ page: integer({ min: 1 }), x: unit, y: unit, width: unit, height: unit })
  .describe("Where students write their name, page-relative (0–1, origin top-left): the crop shown to identify a script; null when not set");

export const boundaryPayload = z.object({
  id: z.uuid("id must be a UUID"),
  question_id: z.uuid("question_id must be a UUID"),
  page: integer({ min: 1 }),
  top: unit,
  bottom: unit,
});

type QuestionPayload = z.output<typeof questionPayload>;
type ResponseAreaPayload = z.output<typeof responseAreaPayload>;
type BoundaryPayload = z.output<typeof boundaryPayload>;
export type NameBoxPayload = z.output<typeof nameBoxPayload>;

export interface Canvas {
  questions: QuestionPayload[];
  /** `tick_boxes` left out: a written area (a catalogue structure built in code need not say so). */
  response_areas: (Omit<ResponseAreaPayload, "tick_boxes"> & { tick_boxes?: TickBox[] | null })[];
  boundaries: BoundaryPayload[];
}

const invalid = (param: string, message: string) => new AppError("invalid", `${param}: ${message}`, param);

/**
 * Checks what the schema cannot: ids unique, parents that exist and are containers, no cycles, areas
 * and boundaries that reference questions of this canvas, pages within page_count, rectangles inside
 * the page, maximum marks by the rule of max-marks.ts. Throws a 400 naming the first fault.
 */
export function validateCanvas(canvas: Canvas, pageCount: number | null): void {
  const seen = new Set<string>();
  for (const [index, id] of [
    ...canvas.questions.map((q) => q.id),
    ...canvas.response_areas.map((a) => a.id),
    ...canvas.boundaries.map((b) => b.id),
  ].entries()) {
    if (seen.has(id.toLowerCase())) throw new AppError("invalid", `id ${id} is used twice in the canvas (item ${index})`, "id");
    seen.add(id.toLowerCase());
  }

  const byId = new Map(canvas.questions.map((question) => [question.id.toLowerCase(), question]));
  canvas.questions.forEach((question, index) => {
    if (!question.parent_id) return;
    const parent = byId.get(question.parent_id.toLowerCase());
    if (!parent) throw invalid(`questions[${index}].parent_id`, `parent ${question.parent_id} is not a question of this template`);
    if (!parent.is_container) throw invalid(`questions[${index}].parent_id`, `parent ${parent.label} is not a container (is_container is false)`);
  });
  canvas.questions.forEach((question, index) => {
    const path = new Set<string>([question.id.toLowerCase()]);
    for (let parentId = question.parent_id; parentId; parentId = byId.get(parentId.toLowerCase())?.parent_id ?? null) {
      if (path.has(parentId.toLowerCase())) throw invalid(`questions[${index}].parent_id`, `question ${question.label} is its own ancestor (a cycle)`);
      path.add(parentId.toLowerCase());
    }
  });
  const marksFault = maxMarksFault(canvas.questions);
  if (marksFault) throw new AppError("invalid", marksFault.message, `questions[${marksFault.index}].max_marks`);

  const checkPage = (param: string, page: number) => {
    if (pageCount !== null && page > pageCount) throw invalid(param, `page ${page} is beyond the paper's ${pageCount} pages`);
  };
  const boxLabels = new Map<string, Set<string>>();
  canvas.response_areas.forEach((area, index) => {
    const param = `response_areas[${index}]`;
    if (!byId.has(area.question_id.toLowerCase())) throw invalid(`${param}.question_id`, `question ${area.question_id} is not a question of this template`);
    checkPage(`${param}.page`, area.page);
    if (area.width <= 0 || area.height <= 0) throw invalid(param, "width and height must be more than 0");
    if (area.x + area.width > 1 || area.y + area.height > 1) throw invalid(param, "the rectangle must lie inside the page (x + width ≤ 1, y + height ≤ 1)");
    if (!area.tick_boxes) return;
    const question = byId.get(area.question_id.toLowerCase())!;
    checkTickBoxes(param, area, question.label);
    // A right answer names a box by its label: one label, one box, across all the question's areas.
    const taken = boxLabels.get(question.id.toLowerCase()) ?? new Set<string>();
    area.tick_boxes.forEach((box, boxIndex) => {
      if (taken.has(box.label)) throw invalid(`${param}.tick_boxes[${boxIndex}].label`, `question ${question.label}: the label ${box.label} is used by two of its tick boxes`);
      taken.add(box.label);
    });
    boxLabels.set(question.id.toLowerCase(), taken);
  });
  checkMultipleChoiceSchemes(canvas, boxLabels);
  canvas.boundaries.forEach((boundary, index) => {
    const param = `boundaries[${index}]`;
    if (!byId.has(boundary.question_id.toLowerCase())) throw invalid(`${param}.question_id`, `question ${boundary.question_id} is not a question of this template`);
    checkPage(`${param}.page`, boundary.page);
    if (boundary.top >= boundary.bottom) throw invalid(param, "top must be above bottom (top < bottom)");
  });
}

/** An area's tick boxes (their own shape was checked by tickBoxesSchema): each inside the area, in an area that is marked. */
function checkTickBoxes(param: string, area: Canvas["response_areas"][number], questionLabel: string): void {
  const boxes = area.tick_boxes ?? [];
  // Parsed again: a caller inside the server (a catalogue structure) did not come through the payload schema.
  const parsed = tickBoxesSchema.safeParse(boxes);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.map((step) => (typeof step === "number" ? `[${step}]` : `.${String(step)}`)).join("");
    throw invalid(`${param}.tick_boxes${where}`, `question ${questionLabel}: ${issue.message}`);
  }
  if (area.kind === "context" && boxes.length > 0) throw invalid(`${param}.tick_boxes`, `question ${questionLabel}: a context area is only shown, so it holds no tick boxes`);
  const outside = tickBoxOutsideArea(boxes, area);
  if (outside) throw invalid(`${param}.tick_boxes[${outside.index}]`, `question ${questionLabel}: ${outside.message}`);
}

/** A multiple-choice scheme is well formed and its right answers are boxes of its question's areas. */
function checkMultipleChoiceSchemes(canvas: Canvas, boxLabels: Map<string, Set<string>>): void {
  canvas.questions.forEach((question, index) => {
    if (!question.mark_scheme || !isMultipleChoiceScheme(question.mark_scheme)) return;
    const fault = multipleChoiceFault(question.mark_scheme, boxLabels.get(question.id.toLowerCase()) ?? new Set());
    if (fault) throw invalid(`questions[${index}].mark_scheme`, `question ${question.label}: ${fault}`);
  });
}

/** The name box on a page of the paper and inside it (a 400 naming `name_box` otherwise). */
export function validateNameBox(nameBox: NameBoxPayload, pageCount: number | null): void {
  const refuse = (message: string) => new AppError("invalid", `Name box: ${message}`, "name_box");
  if (pageCount !== null && nameBox.page > pageCount) throw refuse(`page ${nameBox.page} is beyond the paper's ${pageCount === 1 ? "1 page" : `${pageCount} pages`}`);
  if (nameBox.width <= 0 || nameBox.height <= 0) throw refuse("width and height must be more than 0");
  if (nameBox.x + nameBox.width > 1 || nameBox.y + nameBox.height > 1) throw refuse("the rectangle must lie inside the page (x + width ≤ 1, y + height ≤ 1)");
}

/**
 * Tree order: each root by `order`, followed depth-first by its parts (also by `order`). Parents come
 * before their parts, so it is also a safe insertion order.
 */
export function inTreeOrder<Question extends { id: string; parent_id: string | null; order: number; label: string }>(
  questions: Question[],
): Question[] {
  const byOrder = (a: Question, b: Question) => a.order - b.order || a.label.localeCompare(b.label, undefined, { numeric: true });
  const ids = new Set(questions.map((q) => q.id.toLowerCase()));
  const children = new Map<string, Question[]>();
  const roots: Question[] = [];
  for (const question of questions) {
    const parent = question.parent_id?.toLowerCase();
    if (parent && ids.has(parent)) children.set(parent, [...(children.get(parent) ?? []), question]);
    else roots.push(question);
  }
  const ordered: Question[] = [];
  const visit = (question: Question) => {
    ordered.push(question);
    for (const child of (children.get(question.id.toLowerCase()) ?? []).sort(byOrder)) visit(child);
  };
  roots.sort(byOrder).forEach(visit);
  return ordered;
}
