import { randomUUID } from "node:crypto";
import { maxMarksProblem } from "../../../lib/rules/max-marks";
import { MULTIPLE_CHOICE } from "../../../lib/rules/tick-boxes";
import type { Canvas, NameBoxPayload } from "../canvas";
import type { TemplateProposal } from "./proposal";

/**
 * A proposal as the template editor's canvas holds it (server/exam/canvas.ts): questions with ids and
 * parents, one response area per part, tick boxes on a tick-box question's area (its answer type
 * Multiple choice, its right answers left to the teacher), the name box. What the canvas cannot hold
 * is left out, never saved wrong: marks outside the maximum-marks rule become "not set", and a question
 * with parts is worth the total of its parts only when every part has marks. `newId` makes the ids
 * (random UUIDs by default; a test passes its own). Which items are proposed rather than accepted is the
 * editor's to keep (issue 37, item 2): the canvas has no such field.
 */
export function proposalToCanvas(proposal: TemplateProposal, newId: () => string = randomUUID): { canvas: Canvas; name_box: NameBoxPayload | null } {
  const ids = new Map<string, string>();
  const parents = new Set(proposal.questions.map((question) => question.parent_label).filter((label): label is string => label !== null));
  const marksOf = (value: number | null) => (value === null || maxMarksProblem(value) ? null : value);
  const questions: Canvas["questions"] = [];
  const response_areas: Canvas["response_areas"] = [];
  const order = new Map<string | null, number>();
  for (const proposed of proposal.questions) {
    const id = newId();
    ids.set(proposed.label, id);
    const parent_id = proposed.parent_label === null ? null : (ids.get(proposed.parent_label) ?? null);
    const siblings = order.get(parent_id) ?? 0;
    order.set(parent_id, siblings + 1);
    const is_container = parents.has(proposed.label);
    questions.push({
      id,
      parent_id,
      label: proposed.label,
      order: siblings,
      max_marks: is_container ? null : marksOf(proposed.max_marks),
      answer_type: proposed.kind === "ticks" ? MULTIPLE_CHOICE : null,
      mark_scheme: null,
      spec_ref: null,
      is_container,
    });
    if (is_container || !proposed.area || proposed.page === null) continue;
    response_areas.push({
      id: newId(),
      question_id: id,
      page: proposed.page,
      kind: "response",
      response_form: null,
      ...proposed.area,
      tick_boxes: proposed.kind === "ticks" ? (proposed.tick_boxes ?? null) : null,
    });
  }
  // A question with parts: the total of its parts when all have marks (the rule of max-marks.ts).
  const byId = new Map(questions.map((question) => [question.id, question]));
  const total = (id: string): number | null => {
    const children = questions.filter((question) => question.parent_id === id);
    if (children.length === 0) return byId.get(id)!.max_marks;
    let sum = 0;
    for (const child of children) {
      const value = total(child.id);
      if (value === null) return null;
      sum += value;
    }
    return Number(sum.toFixed(2));
  };
  for (const question of questions) if (question.is_container) question.max_marks = total(question.id);
  const name_box = proposal.name_box ? { page: proposal.name_box.page, x: proposal.name_box.x, y: proposal.name_box.y, width: proposal.name_box.width, height: proposal.name_box.height } : null;
  return { canvas: { questions, response_areas, boundaries: [] }, name_box };
}
