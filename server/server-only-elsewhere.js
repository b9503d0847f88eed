// What `import "#server-only"` loads outside a browser bundle (package.json "imports"): nothing. Under
// Node (server.ts through tsx, the CLI, vitest, the workers) and in Next's server bundles a module so
// marked loads as usual; in a browser bundle the same import resolves to the `server-only` package,
// which fails. Why not `import "server-only"` itself: docs/decisions.md "The fence: a lint rule, and #server-only".
export {};
