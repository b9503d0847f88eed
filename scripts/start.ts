/**
 * npm start: builds the app when there is no production build yet, then runs server.ts in production
 * mode in this same process (so Ctrl-C and SIGTERM reach server.ts's own clean shutdown).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const buildId = path.join(process.cwd(), ".next", "BUILD_ID");

if (!fs.existsSync(buildId)) {
  process.stderr.write("No production build yet: running `next build` first (about 20 s)…\n");
  const nextCli = path.join(process.cwd(), "node_modules", ".bin", process.platform === "win32" ? "next.cmd" : "next");
  const build = spawnSync(nextCli, ["build"], { stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
  if (build.status !== 0) {
    process.stderr.write(`next build failed${build.error ? `: ${build.error.message}` : ""}\n`);
    process.exit(build.status ?? 1);
  }
}

await import("../server");
