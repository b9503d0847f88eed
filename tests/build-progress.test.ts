/**
 * The first start's build keeps talking: Next's phases are named as they begin, and while the build is
 * silent a line says which phase is still running. A real child process stands in for `next build`,
 * printing Next 16's words with pauses longer than the quiet interval.
 */
import { spawnSync } from "node:child_process";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { phaseOfLine, runBuildWithProgress } from "../scripts/build-progress";

/** A child that prints like `next build`: a line, a silence, the next line. */
const FAKE_BUILD = `
const lines = ["   ▲ Next.js 16.4.6 (Turbopack)", "   Creating an optimized production build ...", "\\u001b[32m✓\\u001b[39m Compiled successfully in 2.8min", "   Skipping validation of types", "   Collecting page data using 1 worker ...", "✓ Generating static pages using 1 worker (2/2) in 1951ms"];
let i = 0;
const next = () => { if (i === lines.length) process.exit(Number(process.env.EXIT_CODE ?? 0)); console.log(lines[i++]); setTimeout(next, i === 2 ? 1500 : 50); };
next();
`;

describe("the first start's build progress", () => {
  it("reads Next 16's phase lines (colours and all)", () => {
    expect(phaseOfLine("   Creating an optimized production build ...")).toBe("compiling the app (the longest phase)");
    expect(phaseOfLine("\u001b[32m✓\u001b[39m Compiled successfully in 2.8min")).toBe("compiled; checking and collecting the pages");
    expect(phaseOfLine("   Running TypeScript ...")).toBe("type-checking");
    expect(phaseOfLine("   Skipping validation of types")).toContain("type-checking skipped");
    expect(phaseOfLine("   Collecting page data using 2 workers ...")).toBe("collecting page data");
    expect(phaseOfLine("✓ Finalizing page optimization in 3s")).toBe("finalizing");
    expect(phaseOfLine("Route (app)")).toBeNull();
  });

  it("names each phase as it begins and speaks during a silence, passing Next's output through", async () => {
    const log: string[] = [];
    const stdout = new PassThrough();
    const passed: Buffer[] = [];
    stdout.on("data", (chunk: Buffer) => passed.push(chunk));
    const result = await runBuildWithProgress(process.execPath, ["-e", FAKE_BUILD], { quietMs: 300, log: (line) => log.push(line), stdout, stderr: new PassThrough() });

    expect(result.status).toBe(0);
    expect(Buffer.concat(passed).toString()).toContain("Creating an optimized production build");
    const phases = log.filter((line) => !line.includes("still"));
    expect(phases.map((line) => line.replace(/ \(\d+ s since the build began\)$/, ""))).toEqual([
      "start: build: compiling the app (the longest phase)…",
      "start: build: compiled; checking and collecting the pages…",
      "start: build: collecting page data (type-checking skipped: npm test does it)…",
      "start: build: collecting page data…",
      "start: build: generating static pages…",
    ]);
    // The 1.5 s silence while compiling was filled.
    expect(log.some((line) => line.startsWith("start: build: still compiling the app"))).toBe(true);
  });

  it("reports the build's failure status", async () => {
    const result = await runBuildWithProgress(process.execPath, ["-e", FAKE_BUILD], {
      quietMs: 300,
      log: () => {},
      env: { ...process.env, EXIT_CODE: "3" },
      stdout: new PassThrough(),
      stderr: new PassThrough(),
    });
    expect(result.status).toBe(3);
  });

  it("skips type-checking and the unread Turbopack cache only for npm start's build", () => {
    const read = (env: Record<string, string>) =>
      JSON.parse(
        spawnSync(process.execPath, ["--input-type=module", "-e", "const { default: c } = await import('./next.config.mjs'); console.log(JSON.stringify(c))"], {
          env: { ...process.env, ...env },
          encoding: "utf8",
        }).stdout,
      ) as { typescript: { ignoreBuildErrors: boolean }; experimental: { turbopackFileSystemCacheForBuild: boolean } };
    expect(read({ MARKBOOK_START_BUILD: "1" })).toMatchObject({ typescript: { ignoreBuildErrors: true }, experimental: { turbopackFileSystemCacheForBuild: false } });
    expect(read({ MARKBOOK_START_BUILD: "" })).toMatchObject({ typescript: { ignoreBuildErrors: false }, experimental: { turbopackFileSystemCacheForBuild: true } });
  });
});
