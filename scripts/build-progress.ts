/**
 * `next build` under `npm start`, with its progress kept visible: Next prints a line when a phase ends,
 * and nothing while one runs (its spinners draw only on a terminal), so a first start on a slow machine
 * looked hung for minutes. Next's own lines pass through as they come; each phase is named when it
 * begins, and while Next is silent a line every `quietMs` says which phase is still running and for how
 * long. The phase is read from Next's words (next 16's build output).
 */
import { spawn } from "node:child_process";

/** Next's words that start each phase, the phase's name for the log. */
const PHASES: { pattern: RegExp; name: string }[] = [
  { pattern: /Creating an optimized production build/i, name: "compiling the app (the longest phase)" },
  { pattern: /Compiled successfully|Compiled with warnings/i, name: "compiled; checking and collecting the pages" },
  { pattern: /Running TypeScript|Linting and checking/i, name: "type-checking" },
  { pattern: /Skipping validation of types/i, name: "collecting page data (type-checking skipped: npm test does it)" },
  { pattern: /Collecting page data/i, name: "collecting page data" },
  { pattern: /Generating static pages/i, name: "generating static pages" },
  { pattern: /Finalizing page optimization|Collecting build traces/i, name: "finalizing" },
];

// eslint-disable-next-line no-control-regex
const ansi = /\u001b\[[0-9;?]*[A-Za-z]/g;

/** The phase a line of Next's output begins, if it begins one. */
export function phaseOfLine(line: string): string | null {
  const plain = line.replace(ansi, "");
  return PHASES.find(({ pattern }) => pattern.test(plain))?.name ?? null;
}

export interface BuildProgressOptions {
  /** At most this long without a line before the next "still …" line. */
  quietMs: number;
  /** Where the progress lines go (the start-up log). */
  log: (line: string) => void;
  env?: NodeJS.ProcessEnv;
  /** Where Next's own output goes (the terminal, by default). */
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
}

/** Runs the command (next build), passing its output through and naming its phases; resolves with its exit status. */
export function runBuildWithProgress(command: string, args: string[], options: BuildProgressOptions): Promise<{ status: number | null; error?: Error }> {
  const began = Date.now();
  let lastOutput = began;
  let phase = "starting next build";
  let announced = "";
  const seconds = () => Math.round((Date.now() - began) / 1000);
  const enter = (name: string) => {
    phase = name;
    if (announced === name) return;
    announced = name;
    options.log(`start: build: ${name}… (${seconds()} s since the build began)`);
  };

  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"], env: options.env ?? process.env });
    const pending = { stdout: "", stderr: "" };
    const pass = (stream: "stdout" | "stderr", sink: NodeJS.WritableStream) => (chunk: Buffer) => {
      lastOutput = Date.now();
      sink.write(chunk);
      const text = pending[stream] + chunk.toString("utf8");
      const lines = text.split(/\r?\n|\r/);
      pending[stream] = lines.pop() ?? "";
      for (const line of lines) {
        const next = phaseOfLine(line);
        if (next) enter(next);
      }
    };
    child.stdout.on("data", pass("stdout", options.stdout ?? process.stdout));
    child.stderr.on("data", pass("stderr", options.stderr ?? process.stderr));

    const timer = setInterval(() => {
      if (Date.now() - lastOutput < options.quietMs) return;
      lastOutput = Date.now();
      options.log(`start: build: still ${phase} (${seconds()} s since the build began)`);
    }, Math.max(50, Math.min(1000, Math.floor(options.quietMs / 4))));

    const finish = (result: { status: number | null; error?: Error }) => {
      clearInterval(timer);
      resolve(result);
    };
    child.on("error", (error) => finish({ status: null, error }));
    child.on("close", (status) => finish({ status }));
  });
}
