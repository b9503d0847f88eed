import { z } from "zod";

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
