import path from "node:path";
import { ESLint, type Linter } from "eslint";
import fc from "fast-check";
import tseslint from "typescript-eslint";
import { describe, expect, it } from "vitest";

/**
 * The fence between server and browser code (eslint-server-fence.js): components, lib/ and client
 * components under app/ import only types from server/. The blocks are linted here alone (no type
 * information is needed), and the project's config is checked to carry them.
 */

const root = path.resolve(import.meta.dirname, "..");
// Plain JavaScript outside the TypeScript project (as eslint.config.js is): imported by its path.
const { serverFence } = (await import(path.join(root, "eslint-server-fence.js"))) as { serverFence: Linter.Config[] };
const fence = new ESLint({
  cwd: root,
  overrideConfigFile: true,
  overrideConfig: [{ files: ["**/*.{ts,tsx}"], languageOptions: { parser: tseslint.parser }, plugins: { "@typescript-eslint": tseslint.plugin } }, ...serverFence],
});

async function problems(file: string, code: string): Promise<string[]> {
  const [result] = await fence.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.map((message) => `${message.ruleId}: ${message.message}`);
}

/** How a file in `folder` may name a module of server/ (`rest` is the path inside server/). */
const specifierOf = (folder: string, style: "alias" | "relative", rest: string) =>
  style === "alias" ? `@/server/${rest}` : `${"../".repeat(folder.split("/").length)}server/${rest}`;

const segment = fc.stringMatching(/^[a-z][a-z-]{0,11}$/);
const serverModule = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join("/"));
const browserFolder = fc.constantFrom("components/marking", "components/shell", "lib", "lib/rules", "components/batches/identify");
const style = fc.constantFrom("alias" as const, "relative" as const);
const runtimeImport = fc.constantFrom(
  (from: string) => `import { value } from "${from}";\nexport const used = value;`,
  (from: string) => `import * as all from "${from}";\nexport const used = all;`,
  (from: string) => `import value from "${from}";\nexport const used = value;`,
  (from: string) => `import "${from}";`,
  (from: string) => `export { value } from "${from}";`,
  (from: string) => `import { type Shape, value } from "${from}";\nexport const used: Shape = value;`,
);
const typeImport = fc.constantFrom(
  (from: string) => `import type { Shape } from "${from}";\nexport type Used = Shape;`,
  (from: string) => `import { type Shape } from "${from}";\nexport type Used = Shape;`,
  (from: string) => `export type { Shape } from "${from}";`,
);

describe("the server/browser fence", () => {
  it("refuses every runtime import of server code from components and lib/", async () => {
    await fc.assert(
      fc.asyncProperty(browserFolder, style, serverModule, runtimeImport, async (folder, how, rest, write) => {
        const found = await problems(`${folder}/Thing.tsx`, write(specifierOf(folder, how, rest)));
        expect(found).toHaveLength(1);
        expect(found[0]).toMatch(/^@typescript-eslint\/no-restricted-imports: .*Browser code imports only types from server\//);
      }),
      { numRuns: 60 },
    );
  });

  it("lets type imports of server code through, and imports of lib/ and packages", async () => {
    await fc.assert(
      fc.asyncProperty(browserFolder, style, serverModule, typeImport, async (folder, how, rest, write) => {
        expect(await problems(`${folder}/Thing.tsx`, write(specifierOf(folder, how, rest)))).toEqual([]);
      }),
      { numRuns: 40 },
    );
    const neighbours = 'import { maxMarksProblem } from "@/lib/rules/max-marks";\nimport { z } from "zod";\nimport "server-only-not";\nexport const used = [maxMarksProblem, z];';
    expect(await problems("components/marking/Thing.tsx", neighbours)).toEqual([]);
    expect(await problems("components/marking/Thing.tsx", 'import { servers } from "@/lib/servers";\nexport const used = servers;')).toEqual([]);
  });

  it("holds client components under app/ to the same rule, and lets server components import server code", async () => {
    const runtime = 'import { getDatabase } from "@/server/db/client";\nexport const used = getDatabase;';
    expect(await problems("app/(app)/error.tsx", `"use client";\n${runtime}`)).toEqual([
      "markbook/no-server-in-client: Browser code imports only types from server/: a value both sides need belongs in lib/rules/ (docs/decisions/architecture.md, on the fence).",
    ]);
    expect(await problems("app/(app)/error.tsx", `"use client";\nconst later = () => import("../../server/db/client");\nexport default later;`)).toHaveLength(1);
    expect(await problems("app/(app)/error.tsx", `"use client";\nimport type { Db } from "@/server/db/client";\nexport type Used = Db;`)).toEqual([]);
    expect(await problems("app/(app)/people/page.tsx", runtime)).toEqual([]);
  });

  it("is part of the project's lint config for components, lib/ and app/", async () => {
    const project = new ESLint({ cwd: root });
    const rule = async (file: string, name: string) => ((await project.calculateConfigForFile(path.join(root, file))) as { rules: Record<string, unknown> }).rules[name];
    const restricted = [2, (serverFence[0]!.rules!["@typescript-eslint/no-restricted-imports"] as unknown[])[1]];
    expect(await rule("components/marking/Thing.tsx", "@typescript-eslint/no-restricted-imports")).toEqual(restricted);
    expect(await rule("lib/rules/thing.ts", "@typescript-eslint/no-restricted-imports")).toEqual(restricted);
    expect(await rule("app/(app)/error.tsx", "markbook/no-server-in-client")).toEqual([2]);
    expect(await rule("server/db/client.ts", "@typescript-eslint/no-restricted-imports")).toBeUndefined();
  });
});
