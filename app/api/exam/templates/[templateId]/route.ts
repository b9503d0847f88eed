import { asUser } from "@/server/db/rls";
import { pathId } from "@/server/exam/http-input";
import { readJsonBody } from "@/server/http/request-body";
import {
  archiveTemplate,
  getTemplate,
  saveTemplate,
  saveTemplateBody,
  templateOutput,
  templateWithCanvasOutput,
} from "@/server/exam/templates";
import { restRoute } from "@/server/http/rest";
import { validatedReply } from "@/server/http/validated-reply";

export const dynamic = "force-dynamic";

type Params = { templateId: string };

/** GET /api/exam/templates/{id}: the template with its whole canvas. */
export const GET = restRoute<Params>(async ({ db, user, params }) => {
  const template_id = pathId(params.templateId, "Template");
  return validatedReply(templateWithCanvasOutput, await asUser(db, user.id, (tx) => getTemplate(tx, template_id)), "GET /api/exam/templates/{templateId}");
});

/** PUT /api/exam/templates/{id}: full-replace save of the canvas and template-level fields. */
export const PUT = restRoute<Params>(async ({ db, user, params, request }) => {
  const template_id = pathId(params.templateId, "Template");
  // Parsed here so that a refusal names the field as this client sent it (`questions.1.label`).
  const body = saveTemplateBody.parse(await readJsonBody(request));
  return validatedReply(templateWithCanvasOutput, await saveTemplate(db, user.id, { template_id, body }), "PUT /api/exam/templates/{templateId}");
});

/** DELETE /api/exam/templates/{id}: soft delete (archived; the row is kept). */
export const DELETE = restRoute<Params>(async ({ db, user, params }) => {
  const template_id = pathId(params.templateId, "Template");
  return validatedReply(templateOutput, await asUser(db, user.id, (tx) => archiveTemplate(tx, user.id, template_id)), "DELETE /api/exam/templates/{templateId}");
});
