import type { EditorDocument, MarkScheme, TemplateStatus } from "./editor-state";

/** The shape exam.templates.get and exam.templates.save answer (the parts the editor uses). */
export interface ServerTemplate {
  title: string;
  subject: string | null;
  status: TemplateStatus;
  page_count: number | null;
  questions: Array<{
    id: string;
    parent_id: string | null;
    label: string;
    max_marks: number | null;
    answer_type: string | null;
    mark_scheme: { type: string; [key: string]: unknown } | null;
    spec_ref: string | null;
    is_container: boolean;
  }>;
  response_areas: Array<{ id: string; question_id: string; page: number; kind: "response" | "context"; response_form: string | null; x: number; y: number; width: number; height: number }>;
  boundaries: Array<{ id: string; question_id: string; page: number; top: number; bottom: number }>;
}

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
      mark_scheme: mark_scheme as MarkScheme | null,
      spec_ref,
      is_container,
    })),
    areas: template.response_areas.map(({ id, question_id, page, kind, response_form, x, y, width, height }) => ({ id, question_id, page, kind, response_form, x, y, width, height })),
    boundaries: template.boundaries.map(({ id, question_id, page, top, bottom }) => ({ id, question_id, page, top, bottom })),
  };
}
