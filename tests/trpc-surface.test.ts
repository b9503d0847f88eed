import { describe, expect, it } from "vitest";
import { z } from "zod";
import { appRouter } from "../server/trpc/root";

/**
 * The tRPC surface the web app calls, held in a file beside the tests as the OpenAPI document is
 * (tests/openapi-document.test.ts): every procedure's path, type, base procedure (how many middlewares:
 * signed in, or also with a temporary password) and the JSON Schema of its input and output. Moving a
 * router onto the operation catalogue (server/operation-catalogue.ts) must leave it as it was. A change made on
 * purpose: look at the diff, then `npx vitest run tests/trpc-surface.test.ts -u`.
 */

interface ProcedureDef {
  type: string;
  inputs: z.ZodType[];
  output?: z.ZodType;
  middlewares: unknown[];
}

const schemaOf = (schema: z.ZodType | undefined, io: "input" | "output") =>
  schema ? z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" }) : null;

describe("the tRPC surface", () => {
  it("is the one held in tests/fixtures/trpc/procedures.json", async () => {
    const procedures = appRouter._def.procedures as unknown as Record<string, { _def: ProcedureDef }>;
    const surface = Object.fromEntries(
      Object.entries(procedures)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([path, { _def }]) => [
          path,
          {
            type: _def.type,
            middlewares: _def.middlewares.length,
            inputs: _def.inputs.map((input) => schemaOf(input, "input")),
            output: schemaOf(_def.output, "output"),
          },
        ]),
    );
    expect(Object.keys(surface).length).toBeGreaterThan(80);
    await expect(`${JSON.stringify(surface, null, 2)}\n`).toMatchFileSnapshot("./fixtures/trpc/procedures.json");
  });
});
