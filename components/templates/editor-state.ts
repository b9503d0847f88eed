/**
 * The template editor's document and its pure operations. Questions are kept flat in tree order
 * (a parent, then its parts); `order` is assigned from that order when saving. Rectangles are
 * page-relative (0–1, origin top-left), as the API stores them.
 */

import { parseMaxMarks, partWithoutMaxMarks, partsTotal, readyWithoutMaxMarks } from "@/lib/rules/max-marks";
import type { TemplateStatus } from "@/server/exam/templates";
import { MULTIPLE_CHOICE, TICK_BOX_LABELS, type TickBox, multipleChoiceWithoutAnswer, readyWithoutRightAnswer } from "@/lib/rules/tick-boxes";

export type { TemplateStatus };
export type AreaKind = "response" | "context";
export type MarkScheme = { type: string; [key: string]: unknown };

export interface EditorQuestion {
  id: string;
  parent_id: string | null;
  label: string;
  max_marks: number | null;
  /** The maximum as the teacher typed it, while that differs from `max_marks` (e.g. "1e3" or "1.50"): shown as typed, never rewritten. */
  max_marks_input?: string;
  answer_type: string | null;
  mark_scheme: MarkScheme | null;
  spec_ref: string | null;
  is_container: boolean;
}

export interface EditorArea {
  id: string;
  question_id: string;
  page: number;
  kind: AreaKind;
  response_form: string | null;
  x: number;
  y: number;
  width: number;
  height: number;
  /** The tick boxes printed in a Multiple choice area (lib/rules/tick-boxes.ts); null for a written area. A draft kept from before them has none. */
  tick_boxes?: TickBox[] | null;
}

interface EditorBoundary {
  id: string;
  question_id: string;
  page: number;
  top: number;
  bottom: number;
}

export interface EditorDocument {
  title: string;
  subject: string | null;
  status: TemplateStatus;
  page_count: number | null;
  questions: EditorQuestion[];
  areas: EditorArea[];
  boundaries: EditorBoundary[];
  /** Where students write their name; null when not drawn. */
  name_box: NameBox | null;
  /**
   * Items read from the paper and not yet accepted (question ids, and NAME_BOX_ID), with how sure the
   * reading is. Kept in this browser's draft with the rest of the document and never saved: the save
   * leaves them out, so a guess the teacher has not accepted never reaches marking.
   */
  proposed?: Record<string, Confidence>;
  /** The reading's sentences ("Question 5: no marks found"), shown until their question is edited or deleted, or they are dismissed. */
  warnings?: ProposalWarning[];
}

export interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface NameBox extends Rect {
  page: number;
}

/** The name box's id on the page overlay, where it is drawn, moved and deleted as areas are. */
export const NAME_BOX_ID = "name-box";

export const MIN_SIZE = 0.01;

const clamp01 = (value: number) => Math.min(1, Math.max(0, value));

/** A rectangle kept inside the page with at least the minimum size. */
export function clampRect(rect: Rect): Rect {
  const width = Math.min(1, Math.max(MIN_SIZE, rect.width));
  const height = Math.min(1, Math.max(MIN_SIZE, rect.height));
  const x = Math.min(1 - width, clamp01(rect.x));
  const y = Math.min(1 - height, clamp01(rect.y));
  // Four decimals: a tenth of a millimetre on A4 is plenty, and payloads stay short.
  const round = (v: number) => Math.round(v * 10000) / 10000;
  return { x: round(x), y: round(y), width: round(Math.min(width, 1 - round(x))), height: round(Math.min(height, 1 - round(y))) };
}

export const childrenOf = (questions: EditorQuestion[], parentId: string | null) => questions.filter((q) => q.parent_id === parentId);

/** Depth-first tree order from a parent → children map (siblings keep their relative order). */
function flatten(questions: EditorQuestion[]): EditorQuestion[] {
  const ids = new Set(questions.map((q) => q.id));
  const result: EditorQuestion[] = [];
  const visit = (parentId: string | null) => {
    for (const q of questions.filter((q) => (parentId === null ? q.parent_id === null || !ids.has(q.parent_id) : q.parent_id === parentId))) {
      result.push(q);
      visit(q.id);
    }
  };
  visit(null);
  return result;
}

export function depthOf(questions: EditorQuestion[], question: EditorQuestion): number {
  let depth = 0;
  for (let parent = question.parent_id; parent; parent = questions.find((q) => q.id === parent)?.parent_id ?? null) depth++;
  return depth;
}

function nextRootLabel(questions: EditorQuestion[]): string {
  const numbers = childrenOf(questions, null).map((q) => Number.parseInt(q.label, 10)).filter(Number.isFinite);
  return String((numbers.length ? Math.max(...numbers) : 0) + 1);
}

const romans = ["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii", "xiii", "xiv", "xv", "xvi", "xvii", "xviii", "xix", "xx"];

/** The label suggested for a parent's part at `index`, as papers number them: 3 → 3a, 3b; 3a → 3a(i), 3a(ii). */
export function suggestedPartLabel(parentLabel: string, parentDepth: number, index: number): string {
  if (parentDepth === 0) return `${parentLabel}${index < 26 ? String.fromCharCode(97 + index) : `(${index + 1})`}`;
  return `${parentLabel}(${romans[index] ?? index + 1})`;
}

/** A new part's label: the first suggestion from its parent that no sibling has (3a, 3b, … after the parts there are). */
function nextPartLabel(questions: EditorQuestion[], parent: EditorQuestion): string {
  const taken = new Set(childrenOf(questions, parent.id).map((q) => q.label));
  const depth = depthOf(questions, parent);
  for (let index = taken.size; ; index++) {
    const label = suggestedPartLabel(parent.label, depth, index);
    if (!taken.has(label)) return label;
  }
}

/**
 * Parts that carry their parent's suggested labels in order keep doing so: after the parent is
 * relabelled ("3" → "4") or one of them is deleted, they are suggested again from the parent's label in
 * their order, down the tree (3a, 3b → 4a, 4b; 3a(i) → 4a(i); 3a, 3b, 3c without 3b → 3a, 3b). A part
 * whose label the teacher typed is left as it is, and so are its siblings. A move keeps the labels: the
 * teacher moved that part, by its name.
 */
function followParent(before: EditorQuestion[], after: EditorQuestion[], parentId: string): EditorQuestion[] {
  const parentBefore = before.find((q) => q.id === parentId);
  const parentAfter = after.find((q) => q.id === parentId);
  if (!parentBefore || !parentAfter) return after;
  const depthBefore = depthOf(before, parentBefore);
  const suggested = childrenOf(before, parentId).every((part, index) => part.label === suggestedPartLabel(parentBefore.label, depthBefore, index));
  if (!suggested) return after;
  const depth = depthOf(after, parentAfter);
  let result = after;
  childrenOf(after, parentId).forEach((part, index) => {
    const label = suggestedPartLabel(parentAfter.label, depth, index);
    if (part.label !== label) result = result.map((q) => (q.id === part.id ? { ...q, label } : q));
    result = followParent(before, result, part.id);
  });
  return result;
}

export function newQuestion(questions: EditorQuestion[]): EditorQuestion {
  return {
    id: crypto.randomUUID(),
    parent_id: null,
    label: nextRootLabel(questions),
    // Empty until the teacher types it (a guessed 1 would be saved unnoticed); required before Ready.
    max_marks: null,
    answer_type: null,
    mark_scheme: null,
    spec_ref: null,
    is_container: false,
  };
}

export function addQuestion(doc: EditorDocument, question: EditorQuestion): EditorDocument {
  return { ...doc, questions: [...doc.questions, question] };
}

/** A part under `parentId`, which becomes a container; inserted after the parent's last descendant. */
export function addPart(doc: EditorDocument, parentId: string): { doc: EditorDocument; part: EditorQuestion } {
  const parent = doc.questions.find((q) => q.id === parentId);
  if (!parent) throw new Error("no such question");
  const part: EditorQuestion = { ...newQuestion(doc.questions), parent_id: parentId, label: nextPartLabel(doc.questions, parent) };
  const questions = doc.questions.map((q) => (q.id === parentId ? { ...q, is_container: true, max_marks: null } : q));
  return { doc: { ...doc, questions: flatten([...questions, part]) }, part };
}

/** A change to one question; a new label is followed by the parts that carried the old one (followParent). */
export function updateQuestion(doc: EditorDocument, id: string, patch: Partial<EditorQuestion>): EditorDocument {
  const questions = doc.questions.map((q) => (q.id === id ? { ...q, ...patch } : q));
  // Editing a proposed question is accepting it, and answers what the reading said of it ("no marks found").
  const edited = acceptItem({ ...doc, questions: patch.label === undefined ? questions : followParent(doc.questions, questions, id) }, id);
  return edited.warnings?.some((w) => w.question_id === id) ? { ...edited, warnings: edited.warnings.filter((w) => w.question_id !== id) } : edited;
}

function descendantIds(questions: EditorQuestion[], id: string): Set<string> {
  const ids = new Set([id]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const q of questions) {
      if (q.parent_id && ids.has(q.parent_id) && !ids.has(q.id)) {
        ids.add(q.id);
        grew = true;
      }
    }
  }
  return ids;
}

/** Removes a question with its parts, and their areas and boundaries. */
export function deleteQuestion(doc: EditorDocument, id: string): EditorDocument {
  const gone = descendantIds(doc.questions, id);
  const parentId = doc.questions.find((q) => q.id === id)?.parent_id;
  const kept = doc.questions.filter((q) => !gone.has(q.id));
  return {
    ...doc,
    questions: parentId ? followParent(doc.questions, kept, parentId) : kept,
    areas: doc.areas.filter((a) => !gone.has(a.question_id)),
    boundaries: doc.boundaries.filter((b) => !gone.has(b.question_id)),
    ...(doc.proposed && { proposed: Object.fromEntries(Object.entries(doc.proposed).filter(([item]) => !gone.has(item))) }),
    ...(doc.warnings && { warnings: doc.warnings.filter((w) => w.question_id === null || !gone.has(w.question_id)) }),
  };
}

/** Swaps a question (with its parts) with its previous (-1) or next (+1) sibling. */
export function moveQuestion(doc: EditorDocument, id: string, direction: -1 | 1): EditorDocument {
  const question = doc.questions.find((q) => q.id === id);
  if (!question) return doc;
  const siblings = childrenOf(doc.questions, question.parent_id);
  const index = siblings.findIndex((q) => q.id === id);
  const target = index + direction;
  if (target < 0 || target >= siblings.length) return doc;
  const reordered = [...siblings];
  [reordered[index], reordered[target]] = [reordered[target]!, reordered[index]!];
  const others = doc.questions.filter((q) => q.parent_id !== question.parent_id);
  return { ...doc, questions: flatten([...reordered, ...others]) };
}

export function canMove(questions: EditorQuestion[], id: string, direction: -1 | 1): boolean {
  const question = questions.find((q) => q.id === id);
  if (!question) return false;
  const siblings = childrenOf(questions, question.parent_id);
  const target = siblings.findIndex((q) => q.id === id) + direction;
  return target >= 0 && target < siblings.length;
}

export function addArea(doc: EditorDocument, area: EditorArea): EditorDocument {
  return { ...doc, areas: [...doc.areas, area] };
}

export function updateArea(doc: EditorDocument, id: string, patch: Partial<EditorArea>): EditorDocument {
  const area = doc.areas.find((a) => a.id === id);
  // Moving or resizing a proposed question's area is accepting the question.
  const next = { ...doc, areas: doc.areas.map((a) => (a.id === id ? { ...a, ...patch } : a)) };
  return area ? acceptItem(next, area.question_id) : next;
}

export function deleteArea(doc: EditorDocument, id: string): EditorDocument {
  return { ...doc, areas: doc.areas.filter((a) => a.id !== id) };
}

/** The scheme's free text (`text`); a structured scheme's other fields are shown, not edited, as text. */
export function markSchemeText(scheme: MarkScheme | null): string {
  return typeof scheme?.text === "string" ? scheme.text : "";
}

export interface SchemePoint {
  text: string;
  marks: number | null;
}

/** A point's text as shown: an object in an imported scheme reads as JSON, not "[object Object]". */
function schemeText(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  return JSON.stringify(value);
}

/** What a structured scheme (one imported with the paper) says beyond its text: answer, mark points, other fields. */
export function structuredScheme(scheme: MarkScheme | null): { answer: string | null; points: SchemePoint[]; other: [string, string][] } | null {
  if (!scheme) return null;
  const { type: _type, text: _text, answer, points, total: _total, ...other } = scheme;
  const list = Array.isArray(points)
    ? points.map((point: { text?: unknown; id?: unknown; marks?: unknown }) => ({
        text: schemeText(point.text ?? point.id),
        marks: typeof point.marks === "number" ? point.marks : null,
      }))
    : [];
  const shownAnswer = typeof answer === "string" || typeof answer === "number" ? String(answer) : null;
  const rest = Object.entries(other).map(([key, value]): [string, string] => [key, typeof value === "string" ? value : JSON.stringify(value)]);
  return shownAnswer || list.length || rest.length ? { answer: shownAnswer, points: list, other: rest } : null;
}

/** Keeps a structured scheme's other fields; plain text lives in `text`, and no text means no `text` field. */
export function withMarkSchemeText(scheme: MarkScheme | null, text: string): MarkScheme | null {
  const { text: _old, ...rest } = scheme ?? { type: "text" };
  const structured = Object.keys(rest).some((key) => key !== "type");
  if (!text.trim()) return structured ? rest : null;
  return { ...rest, text };
}

export function totalMarks(questions: EditorQuestion[]): number {
  return questions.filter((q) => !q.is_container).reduce((sum, q) => sum + (q.max_marks ?? 0), 0);
}

/** What the Max marks field shows: the text as typed, else the stored maximum. */
export function typedMaxMarks(question: EditorQuestion): string {
  return question.max_marks_input ?? (question.max_marks === null ? "" : String(question.max_marks));
}

/** The change a keystroke in the Max marks field makes: a valid maximum is taken, the text is always kept as typed. */
export function maxMarksEdit(typed: string): Partial<EditorQuestion> {
  const parsed = parseMaxMarks(typed);
  if ("error" in parsed) return { max_marks_input: typed };
  const shown = parsed.value === null ? "" : String(parsed.value);
  return { max_marks: parsed.value, max_marks_input: typed === shown ? undefined : typed };
}

/** The first markable question whose typed maximum is not one, with what to tell the teacher. */
export function firstMaxMarksError(doc: EditorDocument): { question: EditorQuestion; message: string } | null {
  for (const question of doc.questions) {
    if (question.is_container || question.max_marks_input === undefined) continue;
    const parsed = parseMaxMarks(question.max_marks_input);
    if ("error" in parsed) return { question, message: `Question ${question.label}: ${parsed.error.charAt(0).toLowerCase()}${parsed.error.slice(1)}` };
  }
  return null;
}

/** The first part without maximum marks while the template is to be Ready, with what to tell the teacher (the server's rule). */
export function readyProblem(doc: EditorDocument): { question: EditorQuestion | null; message: string } | null {
  if (doc.status !== "ready") return null;
  const stops = proposedStops(doc);
  if (stops.length > 0) return { question: doc.questions.find((q) => q.id === stops[0]!.id) ?? null, message: proposedReadyMessage(stops.length) };
  const question = partWithoutMaxMarks(doc.questions);
  if (question) return { question, message: `${readyWithoutMaxMarks(question.label)}.` };
  const unanswered = multipleChoiceWithoutAnswer(doc.questions);
  return unanswered ? { question: unanswered, message: `${readyWithoutRightAnswer(unanswered.label)}.` } : null;
}

/** The body of exam.templates.save: template fields plus the full canvas. A question with parts is worth their total. */
export function saveBody(doc: EditorDocument) {
  // What is still proposed is not the teacher's yet: it stays in the editor (and its draft), never on the server.
  const proposed = proposedOf(doc);
  const questions = doc.questions.filter((q) => !(q.id in proposed));
  return {
    title: doc.title,
    subject: doc.subject,
    status: doc.status,
    ...(doc.page_count !== null && { page_count: doc.page_count }),
    questions: questions.map(({ max_marks_input: _typed, ...q }, order) => ({
      ...q,
      max_marks: q.is_container ? partsTotal(questions, q.id) : q.max_marks,
      order,
    })),
    response_areas: doc.areas.filter((area) => !(area.question_id in proposed)).map((area) => ({ ...area, tick_boxes: area.tick_boxes ?? null })),
    boundaries: doc.boundaries.filter((b) => !(b.question_id in proposed)),
    // A draft kept from before the name box existed has none: the saved one is left as it is (and so while it is proposed).
    ...(doc.name_box !== undefined && !(NAME_BOX_ID in proposed) && { name_box: doc.name_box }),
  };
}

/** Questions whose mark-scheme fields differ from the saved copy (what a 409 still lets through). */
export function markSchemeChanges(saved: EditorDocument, current: EditorDocument) {
  const before = new Map(saved.questions.map((q) => [q.id, q]));
  return current.questions.flatMap((q) => {
    const old = before.get(q.id);
    if (!old) return [];
    const body: { max_marks?: number | null; answer_type?: string | null; mark_scheme?: MarkScheme | null; spec_ref?: string | null } = {};
    if (old.max_marks !== q.max_marks) body.max_marks = q.max_marks;
    if (old.answer_type !== q.answer_type) body.answer_type = q.answer_type;
    if (JSON.stringify(old.mark_scheme) !== JSON.stringify(q.mark_scheme)) body.mark_scheme = q.mark_scheme;
    if (old.spec_ref !== q.spec_ref) body.spec_ref = q.spec_ref;
    return Object.keys(body).length ? [{ question_id: q.id, body }] : [];
  });
}

/** Drag-and-drop reorder: puts a question (with its parts) where its sibling `targetId` is. */
export function moveQuestionTo(doc: EditorDocument, id: string, targetId: string): EditorDocument {
  const question = doc.questions.find((q) => q.id === id);
  const target = doc.questions.find((q) => q.id === targetId);
  if (!question || !target || id === targetId || question.parent_id !== target.parent_id) return doc;
  const siblings = childrenOf(doc.questions, question.parent_id);
  const from = siblings.findIndex((q) => q.id === id);
  const to = siblings.findIndex((q) => q.id === targetId);
  const reordered = siblings.filter((q) => q.id !== id);
  reordered.splice(to, 0, siblings[from]!);
  const others = doc.questions.filter((q) => q.parent_id !== question.parent_id);
  return { ...doc, questions: flatten([...reordered, ...others]) };
}

// ── Tick boxes (a Multiple choice question's areas) ──────────────────────────────────────────────

export type { TickBox };

export const isMultipleChoice = (question: Pick<EditorQuestion, "answer_type"> | null | undefined) => question?.answer_type === MULTIPLE_CHOICE;

/** A tick box's id on the page overlay, where it is moved, resized and deleted as areas are. */
export const tickBoxId = (areaId: string, index: number) => `tick:${areaId}:${index}`;

export function parseTickBoxId(id: string | null): { areaId: string; index: number } | null {
  const match = id ? /^tick:(.+):(\d+)$/.exec(id) : null;
  return match ? { areaId: match[1]!, index: Number(match[2]) } : null;
}

/** The multiple-choice scheme of a question: its right labels and whether more than one tick is allowed. */
export function multipleChoiceScheme(scheme: MarkScheme | null): { correct: string[]; allow_multiple: boolean } {
  const correct = Array.isArray(scheme?.correct) ? scheme.correct.filter((label): label is string => typeof label === "string") : [];
  return { correct, allow_multiple: scheme?.allow_multiple === true };
}

/** The scheme a question takes with a new answer type: Multiple choice gets its own (notes kept); leaving it, the notes stay as text. */
function schemeForAnswerType(scheme: MarkScheme | null, answerType: string | null): MarkScheme | null {
  const text = typeof scheme?.text === "string" ? scheme.text : undefined;
  if (answerType === MULTIPLE_CHOICE) {
    if (scheme?.type === MULTIPLE_CHOICE) return scheme;
    // A structured scheme (one imported with the paper) is not thrown away by a change of answer type.
    if (scheme && scheme.type !== "text") return scheme;
    return { type: MULTIPLE_CHOICE, correct: [], allow_multiple: false, ...(text && { text }) };
  }
  if (scheme?.type !== MULTIPLE_CHOICE) return scheme;
  return text ? { type: "text", text } : null;
}

/** A question's answer type changed: its scheme follows, and leaving Multiple choice its areas drop their boxes. */
export function setAnswerType(doc: EditorDocument, questionId: string, answerType: string | null): EditorDocument {
  const question = doc.questions.find((q) => q.id === questionId);
  if (!question) return doc;
  const next = updateQuestion(doc, questionId, { answer_type: answerType, mark_scheme: schemeForAnswerType(question.mark_scheme, answerType) });
  if (answerType === MULTIPLE_CHOICE) return next;
  return { ...next, areas: next.areas.map((area) => (area.question_id === questionId && area.tick_boxes ? { ...area, tick_boxes: null } : area)) };
}

/** The labels of a question's boxes, across its areas, in alphabetical order. */
export function questionBoxLabels(doc: Pick<EditorDocument, "areas">, questionId: string): string[] {
  return [...new Set(doc.areas.filter((area) => area.question_id === questionId).flatMap((area) => (area.tick_boxes ?? []).map((box) => box.label)))].sort();
}

/** The right answers kept to labels the question still has (after a box is removed or the boxes found again). */
function keepCorrect(doc: EditorDocument, questionId: string, rename: Map<string, string> = new Map()): EditorDocument {
  const labels = new Set(questionBoxLabels(doc, questionId));
  return {
    ...doc,
    questions: doc.questions.map((q) => {
      if (q.id !== questionId || q.mark_scheme?.type !== MULTIPLE_CHOICE) return q;
      const { correct } = multipleChoiceScheme(q.mark_scheme);
      const renamed = correct.map((label) => rename.get(label) ?? label).filter((label) => labels.has(label));
      return renamed.join() === correct.join() ? q : { ...q, mark_scheme: { ...q.mark_scheme, correct: [...new Set(renamed)] } };
    }),
  };
}

function withBoxes(doc: EditorDocument, areaId: string, change: (boxes: TickBox[]) => TickBox[], rename?: Map<string, string>): EditorDocument {
  const area = doc.areas.find((a) => a.id === areaId);
  if (!area) return doc;
  const next = { ...doc, areas: doc.areas.map((a) => (a.id === areaId ? { ...a, tick_boxes: change(a.tick_boxes ?? []) } : a)) };
  return acceptItem(keepCorrect(next, area.question_id, rename), area.question_id);
}

/** The boxes found in an area replace the ones it had. */
export function setTickBoxes(doc: EditorDocument, areaId: string, boxes: TickBox[]): EditorDocument {
  return withBoxes(doc, areaId, () => boxes);
}

/** A rectangle kept inside its area (a box must lie inside it), at least the smallest box. */
function clampIntoArea(rect: Rect, area: Rect): Rect {
  const width = Math.min(area.width, Math.max(0.005, rect.width));
  const height = Math.min(area.height, Math.max(0.005, rect.height));
  const round = (v: number) => Math.round(v * 10000) / 10000;
  const x = round(Math.min(area.x + area.width - width, Math.max(area.x, rect.x)));
  const y = round(Math.min(area.y + area.height - height, Math.max(area.y, rect.y)));
  return { x, y, width: round(Math.min(width, area.x + area.width - x)), height: round(Math.min(height, area.y + area.height - y)) };
}

/** The first letter no box of the question has; null when all 26 are taken. */
function nextBoxLabel(doc: EditorDocument, questionId: string): string | null {
  const taken = new Set(questionBoxLabels(doc, questionId));
  return TICK_BOX_LABELS.find((label) => !taken.has(label)) ?? null;
}

/** A box drawn (or added) in an area: the next free letter, square, inside the area. Null when the question has all 26. */
export function addTickBox(doc: EditorDocument, areaId: string, rect: Rect | null): { doc: EditorDocument; index: number } | null {
  const area = doc.areas.find((a) => a.id === areaId);
  if (!area) return null;
  const label = nextBoxLabel(doc, area.question_id);
  if (!label) return null;
  // Without a drawing (the keyboard's "Add box"): a 5 mm square at the area's top-left, to move into place.
  const placed = clampIntoArea(rect ?? { x: area.x + 0.01, y: area.y + 0.01, width: 0.024, height: 0.017 }, area);
  const boxes = area.tick_boxes ?? [];
  return { doc: withBoxes(doc, areaId, () => [...boxes, { label, shape: "square", ...placed }]), index: boxes.length };
}

export function moveTickBox(doc: EditorDocument, areaId: string, index: number, rect: Rect): EditorDocument {
  const area = doc.areas.find((a) => a.id === areaId);
  if (!area) return doc;
  return withBoxes(doc, areaId, (boxes) => boxes.map((box, i) => (i === index ? { ...box, ...clampIntoArea(rect, area) } : box)));
}

export function removeTickBox(doc: EditorDocument, areaId: string, index: number): EditorDocument {
  return withBoxes(doc, areaId, (boxes) => boxes.filter((_, i) => i !== index));
}

export function reshapeTickBox(doc: EditorDocument, areaId: string, index: number, shape: TickBox["shape"]): EditorDocument {
  return withBoxes(doc, areaId, (boxes) => boxes.map((box, i) => (i === index ? { ...box, shape } : box)));
}

/**
 * A box takes a new letter; a box of the same area that had it takes the old one (the two swap), and
 * the right answers follow the boxes. A letter held by a box of another area of the question is not given.
 */
export function relabelTickBox(doc: EditorDocument, areaId: string, index: number, label: string): EditorDocument {
  const area = doc.areas.find((a) => a.id === areaId);
  const old = area?.tick_boxes?.[index]?.label;
  if (!area || !old || old === label) return doc;
  const elsewhere = doc.areas.some((a) => a.id !== areaId && a.question_id === area.question_id && (a.tick_boxes ?? []).some((box) => box.label === label));
  if (elsewhere) return doc;
  const rename = new Map([
    [old, label],
    [label, old],
  ]);
  return withBoxes(doc, areaId, (boxes) => boxes.map((box, i) => (i === index ? { ...box, label } : box.label === label ? { ...box, label: old } : box)), rename);
}

/** The right answers chosen in the inspector: one box unless more than one tick is allowed. */
export function chooseCorrect(scheme: MarkScheme | null, label: string, right: boolean): MarkScheme {
  const { correct, allow_multiple } = multipleChoiceScheme(scheme);
  const next = right ? (allow_multiple ? [...correct.filter((l) => l !== label), label].sort() : [label]) : correct.filter((l) => l !== label);
  return { ...(scheme ?? {}), type: MULTIPLE_CHOICE, correct: next, allow_multiple };
}

/** "More than one tick allowed" switched; switched off, only the first right answer stays. */
export function allowMultiple(scheme: MarkScheme | null, allow: boolean): MarkScheme {
  const { correct } = multipleChoiceScheme(scheme);
  return { ...(scheme ?? {}), type: MULTIPLE_CHOICE, correct: allow ? correct : correct.slice(0, 1), allow_multiple: allow };
}

// ── A proposal read from the paper (issue 37, item 2): items proposed until the teacher accepts them ──────

export type Confidence = "sure" | "check";

/** A sentence about the proposal, and the question it is about (selected when the sentence is clicked). */
export interface ProposalWarning {
  message: string;
  question_id: string | null;
}

/** What exam.templates.propose answers, as the editor takes it. */
export interface Proposal {
  questions: Omit<EditorQuestion, "max_marks_input">[];
  response_areas: EditorArea[];
  name_box: NameBox | null;
  items: { question_id: string; confidence: Confidence }[];
  name_box_confidence: Confidence | null;
  warnings: ProposalWarning[];
}

const proposedOf = (doc: EditorDocument) => doc.proposed ?? {};

export const isProposed = (doc: EditorDocument, id: string) => id in proposedOf(doc);

/**
 * The proposal drawn into the document, replacing only what is still proposed: accepted questions (and
 * their parts and areas) stay, and a proposed question whose label an accepted one already has is left
 * out with its parts. An accepted name box stays. The warnings are the new reading's.
 */
export function applyProposal(doc: EditorDocument, proposal: Proposal): EditorDocument {
  const wasProposed = proposedOf(doc);
  const keptQuestions = doc.questions.filter((q) => !(q.id in wasProposed));
  const taken = new Set(keptQuestions.map((q) => q.label));
  const skipped = new Set<string>();
  const added = proposal.questions.filter((q) => {
    if (taken.has(q.label) || (q.parent_id !== null && skipped.has(q.parent_id))) {
      skipped.add(q.id);
      return false;
    }
    return true;
  });
  const addedIds = new Set(added.map((q) => q.id));
  const proposed: Record<string, Confidence> = {};
  for (const item of proposal.items) if (addedIds.has(item.question_id)) proposed[item.question_id] = item.confidence;
  const nameBoxProposed = NAME_BOX_ID in wasProposed || !doc.name_box;
  const name_box = nameBoxProposed ? proposal.name_box : doc.name_box;
  if (nameBoxProposed && proposal.name_box) proposed[NAME_BOX_ID] = proposal.name_box_confidence ?? "check";
  return {
    ...doc,
    questions: [...keptQuestions, ...added.map((q) => ({ ...q }))],
    areas: [...doc.areas.filter((a) => !(a.question_id in wasProposed)), ...proposal.response_areas.filter((a) => addedIds.has(a.question_id))],
    boundaries: doc.boundaries.filter((b) => !(b.question_id in wasProposed)),
    name_box,
    proposed,
    warnings: proposal.warnings.filter((w) => w.question_id === null || addedIds.has(w.question_id)),
  };
}

/** The items whose acceptance goes with `id`'s: itself, its parts (all of them) and the questions it is a part of (a part needs its question). */
function acceptedWith(doc: EditorDocument, id: string): Set<string> {
  if (id === NAME_BOX_ID) return new Set([id]);
  const ids = descendantIds(doc.questions, id);
  for (let parent = doc.questions.find((q) => q.id === id)?.parent_id ?? null; parent; parent = doc.questions.find((q) => q.id === parent)?.parent_id ?? null) ids.add(parent);
  return ids;
}

/** The teacher accepts a proposed item (a question with its parts and areas, or the name box): it is theirs now, saved as any other. */
export function acceptItem(doc: EditorDocument, id: string): EditorDocument {
  if (!doc.proposed) return doc;
  const gone = acceptedWith(doc, id);
  if (![...gone].some((item) => item in doc.proposed!)) return doc;
  return { ...doc, proposed: Object.fromEntries(Object.entries(doc.proposed).filter(([item]) => !gone.has(item))) };
}

/** "Accept all": every proposed item is the teacher's. The reading's sentences stay until their question is edited, or they are dismissed. */
export function acceptAll(doc: EditorDocument): EditorDocument {
  if (!doc.proposed) return doc;
  return { ...doc, proposed: {} };
}

/** "Discard what was read": every item still proposed is removed (questions with their areas, a proposed name box), and the sentences. */
export function discardProposed(doc: EditorDocument): EditorDocument {
  const proposed = proposedOf(doc);
  const gone = new Set(Object.keys(proposed));
  return {
    ...doc,
    questions: doc.questions.filter((q) => !gone.has(q.id)),
    areas: doc.areas.filter((a) => !gone.has(a.question_id)),
    boundaries: doc.boundaries.filter((b) => !gone.has(b.question_id)),
    name_box: NAME_BOX_ID in proposed ? null : doc.name_box,
    proposed: {},
    warnings: [],
  };
}

export function dismissWarnings(doc: EditorDocument): EditorDocument {
  return { ...doc, warnings: [] };
}

/**
 * The proposed items the teacher steps through, in paper order: the name box first (it is on the cover),
 * then each question's parts. A question with parts is accepted with any of them, so it is a stop only
 * when none of its parts is still proposed.
 */
export function proposedStops(doc: EditorDocument): { id: string; confidence: Confidence }[] {
  const proposed = proposedOf(doc);
  const stops: { id: string; confidence: Confidence }[] = [];
  if (proposed[NAME_BOX_ID] && doc.name_box) stops.push({ id: NAME_BOX_ID, confidence: proposed[NAME_BOX_ID] });
  for (const question of doc.questions) {
    const confidence = proposed[question.id];
    if (!confidence) continue;
    if (question.is_container && childrenOf(doc.questions, question.id).some((part) => part.id in proposed)) continue;
    stops.push({ id: question.id, confidence });
  }
  return stops;
}

/** How many items are still proposed (what Ready waits for). */
export const proposedCount = (doc: EditorDocument) => proposedStops(doc).length;

/**
 * The item to look at after `fromId` (the one just accepted, or selected): the next one to "check" in
 * paper order (round to the start), else the next proposed one; null when nothing is proposed.
 */
export function nextProposed(doc: EditorDocument, fromId: string | null): string | null {
  const stops = proposedStops(doc);
  if (stops.length === 0) return null;
  const order = [NAME_BOX_ID, ...doc.questions.map((q) => q.id)];
  const position = fromId === null ? -1 : order.indexOf(fromId);
  const after = (stop: { id: string }) => order.indexOf(stop.id) > position;
  const rotated = [...stops.filter(after), ...stops.filter((stop) => !after(stop))];
  return (rotated.find((stop) => stop.confidence === "check") ?? rotated[0]!).id;
}

/** The sentence that refuses Ready while items are proposed. */
export function proposedReadyMessage(count: number): string {
  return `${count === 1 ? "1 item read from the paper is" : `${count} items read from the paper are`} still proposed: accept ${count === 1 ? "it" : "them"} (select and press A, or Shift+A for all) or delete ${count === 1 ? "it" : "them"} before setting Ready.`;
}

/** The document as "unsaved changes" compares it: the reading's sentences and an empty proposed set are no change. */
export function comparableDocument(doc: EditorDocument): Omit<EditorDocument, "warnings"> {
  const { warnings: _warnings, proposed, ...rest } = doc;
  return proposed && Object.keys(proposed).length > 0 ? { ...rest, proposed } : rest;
}

/** After a save, the server's copy, with what the editor keeps beside it: the items still proposed (never sent) and the reading's sentences. */
export function afterSave(fresh: EditorDocument, sent: EditorDocument): EditorDocument {
  if (proposedStops(sent).length > 0) return sent;
  return sent.warnings?.length ? { ...fresh, warnings: sent.warnings } : fresh;
}
