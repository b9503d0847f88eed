import { execFileSync } from "node:child_process";
import fs from "node:fs";
import { defineConfig } from "@playwright/test";

/**
 * End-to-end tests against the production build in Chromium (never a downloaded browser).
 * The web server is built, then started on its own port with a fresh, throw-away data folder, so every
 * run starts from a newly seeded demo school.
 *   E2E_PORT=3100        port of the test server
 *   E2E_SKIP_BUILD=1     reuse the existing .next build (local iterations only)
 *   CHROMIUM_PATH=…      another Chromium binary (default /usr/bin/chromium, else the headless shell from npm)
 *   E2E_BASE_URL=…       test a server that is already running (it must have the demo school); no web server is started
 */
const port = Number(process.env.E2E_PORT ?? 3100);
const external = process.env.E2E_BASE_URL;
const baseURL = external ?? `http://localhost:${port}`;
const dataDir = ".e2e-data";
// Built as a first `npm start` builds (MARKBOOK_START_BUILD, next.config.mjs): no type-check (`npm test`
// ran `npm run typecheck` before), no build cache nobody would read; about half the build's time.
const build = process.env.E2E_SKIP_BUILD === "1" ? "" : "MARKBOOK_START_BUILD=1 npm run build && ";

/**
 * The speech service of the test server: the random-weight Whisper model beside the repository (CI
 * clones the repository next to ../shared), never the hub. Its words are meaningless; dictation tests
 * compare what the service sent with what the page shows. Loaded on the first dictation, not at start.
 */
const speechEnv = {
  MODELS_DIR: "../shared/models",
  SPEECH_MODEL_TINY: "whisper-tiny-random",
  SPEECH_MODEL_BASE: "whisper-tiny-random",
  SPEECH_DEFAULT_MODEL: "tiny",
  ALLOW_REMOTE_MODELS: "false",
  // Short transcripts, no sampled retries: a random model is never confident, so the fallback would fire every time.
  SPEECH_MAX_NEW_TOKENS: "24",
  SPEECH_FALLBACK_TEMPERATURES: "off",
};

/**
 * The machine's Chromium, else the Chromium headless shell that `@sparticuz/chromium` ships in npm
 * (unpacked from the package to /tmp on first use, never downloaded), so `npm test` needs no system
 * browser. Its path is only known asynchronously, and the config is read synchronously: a child process
 * asks for it. Playwright itself never downloads a browser: every launch names its executable.
 */
function chromiumExecutable(): { path: string; source: string } {
  if (process.env.CHROMIUM_PATH) return { path: process.env.CHROMIUM_PATH, source: "CHROMIUM_PATH" };
  if (fs.existsSync("/usr/bin/chromium")) return { path: "/usr/bin/chromium", source: "the system's" };
  const script = "import('@sparticuz/chromium').then(async ({ default: chromium }) => process.stdout.write(await chromium.executablePath()))";
  return { path: execFileSync(process.execPath, ["-e", script], { encoding: "utf8" }), source: "@sparticuz/chromium's" };
}

const chromium = chromiumExecutable();
// The config is read by the runner and again by each worker: the runner says once which browser it is.
if (process.env.TEST_WORKER_INDEX === undefined) {
  const version = execFileSync(chromium.path, ["--version"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  console.info(`Chromium for this run: ${chromium.source} ${chromium.path} (${version})`);
}

/** Chromium as every spec launches it; a spec that needs more flags (fake microphone) extends these. */
export const chromiumLaunchOptions = {
  executablePath: chromium.path,
  // --headless is added by Playwright itself.
  args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
};

export default defineConfig({
  testDir: "e2e",
  outputDir: "test-results",
  // One server with one database: tests run one at a time, in file order.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 10_000 },
  reporter: process.env.CI ? [["list"], ["html", { open: "never" }]] : [["list"]],
  use: {
    baseURL,
    viewport: { width: 1280, height: 800 },
    // A failed test keeps its trace of actions, console and network, without DOM snapshots or a
    // screencast: on a busy machine the snapshots' copies of the PDF canvases held a page's first canvas
    // back past 90 s (4–6 s without them; the screencast alone tripled it), in either Chromium.
    trace: { mode: "retain-on-failure", snapshots: false, screenshots: false },
    screenshot: "only-on-failure",
    launchOptions: chromiumLaunchOptions,
  },
  projects: [{ name: "chromium", use: { browserName: "chromium" } }],
  webServer: external
    ? undefined
    : {
        command: `${build}rm -rf ${dataDir} && DATA_DIR=${dataDir} PORT=${port} npx tsx server.ts`,
        env: speechEnv,
        url: `${baseURL}/signin`,
        // A cold build took 110–220 s on two idle cores, and passed 240 s with the machine at load 12 (CI
        // failed on it); the first start then migrates and seeds (~40 s). A ceiling, not a wait.
        timeout: 900_000,
        reuseExistingServer: false,
        stdout: "ignore",
        stderr: "pipe",
      },
});
