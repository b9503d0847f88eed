// Entry point of an engine worker thread. The worker itself is TypeScript: tsx's loader is registered
// here so that the same file runs under `npm start` (tsx) and under vitest, with no build step.
import { register } from "tsx/esm/api";

register();
await import("./engine-worker.ts");
