/**
 * npm start: builds the app when there is no production build yet, then runs server.ts in production
 * mode in this same process (so Ctrl-C and SIGTERM reach server.ts's own clean shutdown). Each step of
 * the start, and the total, is logged as it goes (server/startup-log.ts).
 */
import fs from "node:fs";
import path from "node:path";
import { logger } from "../server/logger";
import { startupLog } from "../server/startup-log";
import { runBuildWithProgress } from "./build-progress";

/** While `next build` prints nothing, a line at least this often says which phase is still running. */
const BUILD_QUIET_MS = 5000;

// As server.ts sets it, but before the first log line reads the configuration (env() keeps what it read).
(process.env as Record<string, string>).NODE_ENV = "production";
const buildId = path.join(process.cwd(), ".next", "BUILD_ID");

if (fs.existsSync(buildId)) {
  startupLog().skipped("build", `the production build in .next from ${fs.statSync(buildId).mtime.toISOString()}; delete .next to rebuild`);
} else {
  const build = await startupLog().step(
    "build",
    "no production build yet: building the app with `next build` (only the first start does this, a few minutes on two cores; later starts skip it)",
    () => {
      const nextCli = path.join(process.cwd(), "node_modules", ".bin", process.platform === "win32" ? "next.cmd" : "next");
      // MARKBOOK_START_BUILD: next.config.mjs skips the type check here; `npm test` (and `npm run build`) do it.
      return runBuildWithProgress(nextCli, ["build"], {
        quietMs: BUILD_QUIET_MS,
        log: (line) => logger.info(line),
        env: { ...process.env, NODE_ENV: "production", MARKBOOK_START_BUILD: "1" },
      });
    },
  );
  if (build.status !== 0) {
    process.stderr.write(`next build failed${build.error ? `: ${build.error.message}` : ""}\n`);
    process.exit(build.status ?? 1);
  }
}

await import("../server");
