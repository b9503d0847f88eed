import crypto from "node:crypto";
import { detailErrorSchema, jsonSchemaOf } from "./openapi-schema";
import type { AnyRouteDefinition, ReplySpec } from "./route";

/**
 * The generator of an OpenAPI 3.1 document from route definitions: each route's operation comes from
 * the same zod schemas its handler is parsed and checked with, so the document cannot drift from what
 * the routes do. Parts that are not route definitions (the speech service under /v1, with its own error
 * body and keys) join as whole parts. Which routes and parts make Markbook's document served at
 * /api/openapi.json is decided at the composition root: server/composition/openapi-document.ts.
 */

type JsonSchema = Record<string, unknown>;

/** A piece of the document described by its own code rather than by route definitions. */
interface OpenApiPart {
  tag: { name: string; description?: string };
  paths: Record<string, Record<string, unknown>>;
  securitySchemes: Record<string, unknown>;
  schemas: Record<string, unknown>;
}

interface OpenApiDocumentSource {
  info: { title: string; version: string; description: string };
  routes: AnyRouteDefinition[];
  tags: { name: string; description?: string }[];
  parts: OpenApiPart[];
}

export function openApiDocumentOf({ info, routes, tags, parts }: OpenApiDocumentSource) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operationOf(route);
  const schemas: Record<string, unknown> = { Error: detailErrorSchema };
  hoistDefinitions(paths, schemas);
  for (const part of parts)
    for (const [name, schema] of Object.entries(part.schemas)) {
      if (name in schemas) throw new Error(`OpenAPI: the schema ${name} of the ${part.tag.name} part is also a REST one`);
      schemas[name] = schema;
    }
  return {
    openapi: "3.1.0",
    info,
    servers: [{ url: "/" }],
    tags: [...tags, ...parts.map((part) => part.tag)],
    security: [{ bearerAuth: [] }],
    paths: Object.assign({}, paths, ...parts.map((part) => part.paths)) as Record<string, Record<string, unknown>>,
    components: {
      securitySchemes: Object.assign(
        { bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "A Markbook user token or personal access token" } },
        ...parts.map((part) => part.securitySchemes),
      ) as Record<string, unknown>,
      schemas,
    },
  };
}

const unauthenticated = "Missing or invalid bearer token";

function operationOf(route: AnyRouteDefinition): JsonSchema {
  const replies = Object.entries(route.replies as Record<string, ReplySpec>);
  const parameters = [...parametersOf(route.params, "path"), ...parametersOf(route.query, "query")];
  if (replies.some(([, reply]) => reply.kind === "cached-json")) parameters.push(ifNoneMatchParameter);
  const errors = { 401: unauthenticated, ...route.errors };
  return {
    tags: route.tags,
    operationId: route.operationId,
    summary: route.summary,
    ...(route.description ? { description: route.description } : {}),
    security: [{ bearerAuth: [] }],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(route.body ? { requestBody: requestBodyOf(route.body) } : {}),
    responses: {
      ...Object.fromEntries(replies.flatMap(([status, reply]) => responsesOf(Number(status), reply))),
      ...Object.fromEntries(
        Object.entries(errors)
          .sort(([a], [b]) => Number(a) - Number(b))
          .map(([status, description]) => [status, jsonContent(description, { $ref: "#/components/schemas/Error" })]),
      ),
    },
  };
}

/** An object schema's members as parameters; a member's description becomes the parameter's. */
function parametersOf(schema: AnyRouteDefinition["params"], where: "path" | "query"): JsonSchema[] {
  if (!schema) return [];
  const generated = jsonSchemaOf(schema, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(generated.properties ?? {}).map(([name, { description, ...property }]) => ({
    name,
    in: where,
    required: where === "path" || (generated.required?.includes(name) ?? false),
    ...(description ? { description } : {}),
    schema: property,
  }));
}

function requestBodyOf(body: NonNullable<AnyRouteDefinition["body"]>): JsonSchema {
  if (body.kind === "json") return { required: true, content: { "application/json": { schema: jsonSchemaOf(body.schema, "input") } } };
  return { required: true, content: { [body.contentType]: { schema: body.schema } } };
}

const etagHeader = { ETag: { description: "Strong entity tag of the reply (a hash of its bytes)", schema: { type: "string" } } };

/** The If-None-Match header of the lists served through the reply cache (server/http/reply-cache.ts). */
const ifNoneMatchParameter = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description: "ETag of a reply the client holds: 304 without a body while it is still the current reply",
  schema: { type: "string" },
};

function responsesOf(status: number, reply: ReplySpec): [string, JsonSchema][] {
  switch (reply.kind) {
    case "json":
      return [[String(status), jsonContent(reply.description, jsonSchemaOf(reply.schema))]];
    case "cached-json":
      return [
        [String(status), { ...jsonContent(reply.description, jsonSchemaOf(reply.schema)), headers: etagHeader }],
        ["304", { description: "Not modified: If-None-Match names the current reply", headers: etagHeader }],
      ];
    case "file":
      return [[String(status), { description: reply.description, content: { [reply.contentType]: { schema: reply.schema } } }]];
  }
}

const jsonContent = (description: string, schema: JsonSchema) => ({ description, content: { "application/json": { schema } } });

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
