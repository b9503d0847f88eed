// Entry point of the marked-PDF worker when it cannot be bundled (server/workers/bundle.ts): tsx's loader
// runs the TypeScript worker as it is.
import { register } from "tsx/esm/api";

register();
await import("./worker.ts");
