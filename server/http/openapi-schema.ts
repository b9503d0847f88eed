import { z } from "zod";

/** Building blocks of the OpenAPI document: each domain's fragment uses them, server/http/openapi.ts joins them. */

export interface OpenApiFragment {
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, unknown>>;
}

/** JSON Schema (2020-12, as OpenAPI 3.1 uses) of a zod schema; dates travel as ISO 8601 strings. */
export function jsonSchemaOf(schema: z.ZodType, io: "input" | "output" = "output"): Record<string, unknown> {
  const converted = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    unrepresentable: "any",
    override: (context) => {
      const def = (context.zodSchema as unknown as { _zod: { def: { type: string } } })._zod.def;
      if (def.type === "date") {
        context.jsonSchema.type = "string";
        context.jsonSchema.format = "date-time";
      }
    },
  }) as Record<string, unknown>;
  delete converted.$schema;
  return converted;
}

/** The `{detail}` error body of the classroom and exam REST paths. */
export const detailErrorSchema = {
  type: "object",
  properties: { detail: { type: "string", description: "A human-readable message" } },
  required: ["detail"],
} as const;

/** A JSON response entry of an operation. */
export function jsonResponse(description: string, schema: Record<string, unknown>) {
  return { description, content: { "application/json": { schema } } };
}

/** `{detail}` error responses for the given statuses. */
export function errorResponses(statuses: Record<number, string>) {
  return Object.fromEntries(
    Object.entries(statuses).map(([status, description]) => [status, jsonResponse(description, { $ref: "#/components/schemas/Error" })]),
  );
}
