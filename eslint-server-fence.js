// The fence between server and browser code, as ESLint config blocks (spread into eslint.config.js,
// and tested alone by tests/lint-fence.test.ts). Components and lib/ run in the browser, so they take
// only types from server/ (a type import is erased); a value both sides need lives in lib/rules/.
// app/'s files are server components and may import server code, except client components
// ("use client"), which markbook/no-server-in-client holds to the same rule.

/** Where server code is imported from: `@/server/…` or a relative path into server/ (type imports allowed). */
const serverImportPattern = "^(@/|(\\.\\./)+|\\./)server(/|$)";
const serverImportMessage =
  "Browser code imports only types from server/: a value both sides need belongs in lib/rules/ (docs/decisions/architecture.md, on the fence).";
const serverImports = { regex: serverImportPattern, allowTypeImports: true, message: serverImportMessage };

/**
 * The same fence for client components under app/ (a file whose first statement is "use client"):
 * no-restricted-imports cannot tell them from server components, which may import server code.
 */
const noServerInClient = {
  meta: { type: "problem", schema: [], messages: { server: serverImportMessage } },
  create(context) {
    const body = context.sourceCode.ast.body;
    const client = body.some((node) => node.type === "ExpressionStatement" && node.directive === "use client");
    if (!client) return {};
    const server = new RegExp(serverImportPattern);
    const typeOnly = (node) =>
      node.importKind === "type" ||
      node.exportKind === "type" ||
      (node.specifiers?.length > 0 && node.specifiers.every((specifier) => specifier.importKind === "type" || specifier.exportKind === "type"));
    const check = (node) => {
      if (node.source && typeof node.source.value === "string" && server.test(node.source.value) && !typeOnly(node))
        context.report({ node, messageId: "server" });
    };
    return { ImportDeclaration: check, ExportNamedDeclaration: check, ExportAllDeclaration: check, ImportExpression: check };
  },
};

/** The config blocks of the fence. */
export const serverFence = [
  {
    files: ["components/**/*.{ts,tsx}", "lib/**/*.{ts,tsx}"],
    rules: { "@typescript-eslint/no-restricted-imports": ["error", { patterns: [serverImports] }] },
  },
  {
    files: ["app/**/*.{ts,tsx}"],
    plugins: { markbook: { rules: { "no-server-in-client": noServerInClient } } },
    rules: { "markbook/no-server-in-client": "error" },
  },
];
