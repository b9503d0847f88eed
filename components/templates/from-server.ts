import type { z } from "zod";
import type { templateWithCanvasOutput } from "@/server/exam/templates";
import type { EditorDocument } from "./editor-state";

/** What exam.templates.get and exam.templates.save answer: the server's own reply schema. */
export type ServerTemplate = z.output<typeof templateWithCanvasOutput>;

/** The editor's document from the server's template (questions already in tree order). */
export function documentFromServer(template: ServerTemplate): EditorDocument {
  return {
    title: template.title,
    subject: template.subject,
    status: template.status,
    page_count: template.page_count,
    questions: template.questions.map(({ id, parent_id, label, max_marks, answer_type, mark_scheme, spec_ref, is_container }) => ({
      id,
      parent_id,
      label,
      max_marks,
      answer_type,
      mark_scheme,
      spec_ref,
      is_container,
    })),
    areas: template.response_areas.map(({ id, question_id, page, kind, response_form, x, y, width, height, tick_boxes }) => ({
      id,
      question_id,
      page,
      kind,
      response_form,
      x,
      y,
      width,
      height,
      tick_boxes,
    })),
    boundaries: template.boundaries.map(({ id, question_id, page, top, bottom }) => ({ id, question_id, page, top, bottom })),
    name_box: template.name_box,
  };
}
