// Entry point of the template reader's page thread when it cannot be bundled (server/workers/bundle.ts):
// tsx's loader runs the TypeScript as it is.
import { register } from "tsx/esm/api";

register();
await import("./scan-thread.ts");
