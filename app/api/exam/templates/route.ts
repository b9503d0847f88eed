import { asUser } from "@/server/db/rls";
import { queryObject } from "@/server/exam/http-input";
import { queryBoolean } from "@/server/http/input-rules";
import { readJsonBody } from "@/server/http/request-body";
import {
  createTemplate,
  createTemplateInput,
  listTemplates,
  listTemplatesInput,
  templateListOutput,
  templateOutput,
} from "@/server/exam/templates";
import { restRoute } from "@/server/http/rest";
import { validatedReply } from "@/server/http/validated-reply";

export const dynamic = "force-dynamic";

/** POST /api/exam/templates: create a template (the institute rule decides its institute). */
export const POST = restRoute(async ({ db, user, request }) => {
  const body = createTemplateInput.parse(await readJsonBody(request));
  const template = await createTemplate(db, user.id, body);
  return Response.json(validatedReply(templateOutput, template, "POST /api/exam/templates"), { status: 201 });
});

const listQuery = listTemplatesInput.extend({ include_archived: queryBoolean });

/** GET /api/exam/templates: templates visible to the caller, archived ones only when asked. */
export const GET = restRoute(async ({ db, user, url }) => {
  const filters = listQuery.parse(queryObject(url));
  const templates = await asUser(db, user.id, (tx) => listTemplates(tx, { ...filters, include_archived: filters.include_archived ?? false }));
  return validatedReply(templateListOutput, { templates }, "GET /api/exam/templates");
});
