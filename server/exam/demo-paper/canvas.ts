import crypto from "node:crypto";
import type { Canvas } from "../canvas";
import { type DemoPart, demoPaperQuestions } from "./data";
import type { GeneratedPaper } from "./pdf";

function markScheme(part: Pick<DemoPart, "points" | "finalAnswer" | "marks" | "choices">) {
  // A multiple-choice question: the box that is right, one tick allowed (lib/rules/tick-boxes.ts).
  if (part.choices) return { type: "multiple_choice", correct: part.choices.correct, allow_multiple: false };
  return {
    type: "points",
    total: part.marks,
    answer: part.finalAnswer,
    points: part.points.map((point, index) => ({ id: `p${index + 1}`, ...point })),
  };
}

/**
 * The demo paper's canvas as the template editor would send it: fresh UUIDs on every call (they are
 * global keys, one set per template), questions in paper order (containers before their parts, with
 * the total of their parts), and the areas and boundaries the PDF was drawn with.
 */
export function demoPaperCanvas(layout: Pick<GeneratedPaper, "areas" | "boundaries">): Canvas {
  const questionIds = new Map<string, string>();
  const questions: Canvas["questions"] = [];
  for (const question of demoPaperQuestions) {
    const id = crypto.randomUUID();
    questionIds.set(question.label, id);
    const parts = question.parts ?? [];
    const marks = question.leaf?.marks ?? parts.reduce((sum, part) => sum + part.marks, 0);
    questions.push({
      id,
      parent_id: null,
      label: question.label,
      order: questions.length + 1,
      max_marks: marks,
      answer_type: question.leaf ? (question.leaf.choices ? "multiple_choice" : "written") : null,
      mark_scheme: question.leaf ? markScheme(question.leaf) : null,
      spec_ref: question.leaf?.specRef ?? question.specRef ?? null,
      is_container: parts.length > 0,
    });
    for (const part of parts) {
      const partId = crypto.randomUUID();
      questionIds.set(part.label, partId);
      questions.push({
        id: partId,
        parent_id: id,
        label: part.label,
        order: questions.length + 1,
        max_marks: part.marks,
        answer_type: "written",
        mark_scheme: markScheme(part),
        spec_ref: part.specRef,
        is_container: false,
      });
    }
  }
  return {
    questions,
    response_areas: layout.areas.map((area) => ({
      id: crypto.randomUUID(),
      question_id: questionIds.get(area.label)!,
      page: area.page,
      kind: area.kind,
      response_form: area.responseForm,
      x: area.x,
      y: area.y,
      width: area.width,
      height: area.height,
      tick_boxes: area.tickBoxes ?? null,
    })),
    boundaries: layout.boundaries.map((boundary) => ({
      id: crypto.randomUUID(),
      question_id: questionIds.get(boundary.label)!,
      page: boundary.page,
      top: boundary.top,
      bottom: boundary.bottom,
    })),
  };
}
