import crypto from "node:crypto";
import { classroomOpenApi } from "../classroom/openapi";
import { examOpenApi } from "../exam/openapi";
import { graphOpenApi } from "../graph/openapi";
import { type OpenApiFragment, detailErrorSchema } from "./openapi-schema";

/**
 * The OpenAPI 3.1 document served at /api/openapi.json, built from fragments that each domain
 * contributes (generated from the same zod schemas its handlers use). Adding a domain is one import
 * and one entry in `fragments`.
 */

const fragments: OpenApiFragment[] = [examOpenApi, graphOpenApi, classroomOpenApi];

export function buildOpenApiDocument() {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const fragment of fragments) {
    for (const [path, item] of Object.entries(structuredClone(fragment.paths))) paths[path] = { ...paths[path], ...item };
  }
  const schemas: Record<string, unknown> = { Error: detailErrorSchema };
  hoistDefinitions(paths, schemas); // on the copy: the fragments stay as their modules made them
  return {
    openapi: "3.1.0",
    info: {
      title: "Markbook API",
      version: "1.0.0",
      description: "REST paths of Markbook for external tools. Errors carry a human-readable `detail`.",
    },
    servers: [{ url: "/" }],
    tags: fragments.flatMap((fragment) => fragment.tags ?? []),
    security: [{ bearerAuth: [] }],
    paths,
    components: {
      securitySchemes: {
        bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "A Markbook user token or personal access token" },
      },
      schemas,
    },
  };
}

/**
 * zod's JSON Schema puts recursive parts (a JSON value, say) in a `$defs` of the converted schema, with
 * refs like `#/$defs/__schema0` that are relative to that schema. Embedded in a document such a ref
 * would point at the document's root: move each definition to components.schemas (named by its content,
 * so the same definition from two schemas is one component) and rewrite the refs to it.
 */
function hoistDefinitions(node: unknown, schemas: Record<string, unknown>): void {
  if (!node || typeof node !== "object") return;
  const object = node as Record<string, unknown>;
  const defs = object.$defs as Record<string, unknown> | undefined;
  if (defs) {
    delete object.$defs;
    const renamed = new Map<string, string>();
    for (const [name, definition] of Object.entries(defs)) {
      const hash = crypto.createHash("sha256").update(JSON.stringify(definition)).digest("hex").slice(0, 8);
      renamed.set(`#/$defs/${name}`, `#/components/schemas/${name.startsWith("__") ? `Schema_${hash}` : name}`);
    }
    rewriteRefs(object, renamed);
    for (const [name, definition] of Object.entries(defs)) {
      rewriteRefs(definition, renamed);
      schemas[renamed.get(`#/$defs/${name}`)!.slice("#/components/schemas/".length)] = definition;
    }
  }
  for (const value of Object.values(object)) hoistDefinitions(value, schemas);
}

function rewriteRefs(node: unknown, renamed: Map<string, string>): void {
  if (!node || typeof node !== "object") return;
  const object = node as Record<string, unknown>;
  if (typeof object.$ref === "string" && renamed.has(object.$ref)) object.$ref = renamed.get(object.$ref);
  for (const value of Object.values(object)) rewriteRefs(value, renamed);
}
