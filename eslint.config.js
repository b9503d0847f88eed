// ESLint flat config: type-aware typescript-eslint over every source folder, import cycles through
// the TypeScript resolver, React hooks rules for the UI. Why each rule is on or off: docs/decisions/testing.md
// (the "Lint: …" decisions, listed in the index docs/decisions.md).
import js from "@eslint/js";
import tseslint from "typescript-eslint";
import { importX } from "eslint-plugin-import-x";
import { createTypeScriptImportResolver } from "eslint-import-resolver-typescript";
import reactHooks from "eslint-plugin-react-hooks";
import { serverFence } from "./eslint-server-fence.js";

/** The no-unsafe-* rules, off where `any` is read on purpose (see each block below). */
const unsafeAnyRulesOff = {
  "@typescript-eslint/no-unsafe-argument": "off",
  "@typescript-eslint/no-unsafe-assignment": "off",
  "@typescript-eslint/no-unsafe-call": "off",
  "@typescript-eslint/no-unsafe-member-access": "off",
  "@typescript-eslint/no-unsafe-return": "off",
};

export default tseslint.config(
  {
    ignores: [
      ".next/**",
      "node_modules/**",
      "data/**",
      "coverage/**",
      "test-results/**",
      "playwright-report/**",
      "e2e/artifacts/**",
      ".e2e-data/**",
      "drizzle/**",
      "public/**",
      "next-env.d.ts",
    ],
  },
  {
    linterOptions: { reportUnusedDisableDirectives: "error" },
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    plugins: { "import-x": importX },
    settings: {
      // Without these, import-x skips .ts/.tsx files as unknown and no-cycle sees no graph at all.
      "import-x/extensions": [".ts", ".tsx", ".js", ".mjs"],
      "import-x/external-module-folders": ["node_modules", "node_modules/@types"],
      "import-x/parsers": { "@typescript-eslint/parser": [".ts", ".tsx"] },
      "import-x/resolver-next": [createTypeScriptImportResolver({ alwaysTryTypes: true })],
    },
    rules: {
      "import-x/no-cycle": ["error", { ignoreExternal: true }],
      "import-x/no-self-import": "error",
      "import-x/no-duplicates": "error",
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": "error",
      // Async functions without await are how this codebase implements Promise-returning ports (and
      // turns a throw into a rejection); flagging them is noise.
      "@typescript-eslint/require-await": "off",
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "all", caughtErrorsIgnorePattern: "^_", ignoreRestSiblings: true },
      ],
    },
  },
  {
    files: ["app/**/*.{ts,tsx}", "components/**/*.{ts,tsx}"],
    ...reactHooks.configs.flat["recommended-latest"],
  },
  // The fence between server and browser code (eslint-server-fence.js).
  ...serverFence,
  {
    // Tests read JSON replies (`await res.json()` is `any`) and assert their shape at run time; the
    // no-unsafe-* rules would demand a cast before every assertion and find nothing.
    files: ["tests/**/*.ts", "e2e/**/*.ts"],
    rules: unsafeAnyRulesOff,
  },
  {
    // transformers.js types its models, processors and tensors loosely; the Whisper code names that
    // `any` once (AnyModel, AnyProcessor) and checks shapes itself.
    // Likewise where the `any` is a boundary on purpose: a route definition with its types erased
    // (AnyRouteDefinition, checked by zod at run time) and neo4j records (`record.get` is `any`).
    files: [
      "server/speech/whisper/**/*.ts",
      "server/speech/whisper-engine.ts",
      "server/http/route.ts",
      "server/http/openapi.ts",
      "server/graph/neo4j.ts",
    ],
    rules: unsafeAnyRulesOff,
  },
  {
    // Plain JavaScript (this file, next.config.mjs, the speech worker) is outside the TypeScript
    // project, so it gets the untyped rules only.
    files: ["**/*.{js,mjs,cjs}"],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
  },
);
