import { fileURLToPath } from "node:url";
import { bundledWorkerEntry } from "../workers/bundle";

/** The speech engine worker's entry point, bundled to plain JavaScript (server/workers/bundle.ts says why). */
export function engineWorkerEntry(): URL {
  return bundledWorkerEntry("engine-worker", fileURLToPath(new URL("./engine-worker.ts", import.meta.url)), new URL("./engine-worker.mjs", import.meta.url));
}
