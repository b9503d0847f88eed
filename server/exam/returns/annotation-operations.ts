import { errorMeaning } from "../../http/route";
import { defineOperation } from "../../operations/define";
import {
  annotationListOutput,
  annotationOutput,
  listAnnotations,
  listAnnotationsInput,
  removeAnnotation,
  removeAnnotationInput,
  removedAnnotationOutput,
  saveAnnotation,
  saveAnnotationInput,
} from "./annotations";

/**
 * Annotations on a script's scan (`exam.annotations.<name>`; server/exam/returns/annotations.ts): the
 * shapes of a layer, the idempotent save of one shape under its client-owned id, and its removal.
 * The script is looked for before the role is asked: another school's script is not found, by anyone.
 */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;
const notWriter = "Not a writer of the batch (its owner, a marker or a department head); for the second marking's layer, not staff of its school";
const closed = "The batch is archived or signed off";

export const annotationOperations = {
  list: defineOperation({
    kind: "query",
    input: listAnnotationsInput,
    output: annotationListOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => listAnnotations(tx, caller.id, input),
    rest: {
      method: "GET",
      path: "/api/exam/submissions/{submission_id}/annotations",
      operationId: "listAnnotations",
      tags,
      summary: "The annotations of one layer of a script's scan: the first marking's, or the caller's own blind second marking's",
      reply: "The layer's shapes, in the order they were drawn",
      errors: { 400: invalid, 404: notVisible },
    },
  }),

  save: defineOperation({
    kind: "mutation",
    input: saveAnnotationInput,
    output: annotationOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => saveAnnotation(tx, caller.id, input),
    rest: {
      method: "PUT",
      path: "/api/exam/annotations/{annotation_id}",
      operationId: "saveAnnotation",
      tags,
      summary: "Save one annotation under its client-owned id: stored once, replaced when saved again (its script and layer stay)",
      bodyMember: "body",
      reply: "The saved annotation",
      errors: {
        400: invalid,
        403: notWriter,
        404: `${notVisible}; or the id names a shape of another script`,
        409: `${closed}; the shape's layer differs; a second marking's shape on a script not in the moderation sample`,
      },
      example: '{"submission_id": "6f1c2e0a-3b4d-4c5e-8f90-1a2b3c4d5e6f", "page": 1, "kind": "tick", "geometry": {"x": 0.42, "y": 0.31}}',
    },
  }),

  remove: defineOperation({
    kind: "mutation",
    input: removeAnnotationInput,
    output: removedAnnotationOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => removeAnnotation(tx, caller.id, input),
    rest: {
      method: "DELETE",
      path: "/api/exam/annotations/{annotation_id}",
      operationId: "removeAnnotation",
      tags,
      summary: "Remove one annotation",
      reply: "The removed annotation's id",
      errors: { 403: notWriter, 404: `${notVisible}, or already removed`, 409: closed },
    },
  }),
};
