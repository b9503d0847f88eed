import type { AnyRouteDefinition } from "../http/route";
import { openApiDocumentOf } from "../http/openapi";
import { restRoutes, restTags } from "../rest-routes";
import { speechOpenApi } from "../speech/openapi";

/**
 * The OpenAPI 3.1 document served at /api/openapi.json: Markbook's REST routes (server/rest-routes.ts)
 * and the speech service under /v1, a handler of its own with its own error body and keys
 * (server/speech/openapi.ts). The generator is server/http/openapi.ts.
 */
export function buildOpenApiDocument(routes: AnyRouteDefinition[] = restRoutes) {
  return openApiDocumentOf({
    info: {
      title: "Markbook API",
      version: "1.0.0",
      description:
        "REST paths of Markbook for external tools, whose errors carry a human-readable `detail`; and the " +
        "OpenAI-compatible speech service under /v1, whose errors are OpenAI's `{error: {message, type, code, param}}`.",
    },
    routes,
    tags: restTags,
    parts: [speechOpenApi()],
  });
}
