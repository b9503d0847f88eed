import { buildOpenApiDocument } from "@/server/composition/openapi-document";

export const dynamic = "force-dynamic";

/** GET /api/openapi.json: the OpenAPI 3.1 document of the REST paths (public, like any API description). */
export function GET(): Response {
  return Response.json(buildOpenApiDocument(), { headers: { "cache-control": "no-cache" } });
}
