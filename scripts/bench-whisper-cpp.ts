/**
 * whisper.cpp beside Markbook in bench:speech, when a build is named (docs/benchmarks.md says how to
 * build it and convert the same random tiny weights to its format):
 *   WHISPER_CPP_BENCH=<whisper.cpp build>/bin  WHISPER_CPP_MODEL=<ggml model>[,<another>]
 * Its own tools give the figures, each run as its own process with 2 threads:
 *   - `whisper-bench`: one encoder pass and 256 single-token decoder steps (its "decode time" per run);
 *   - `whisper-cli` on the same 30 s window: its "mel time" (log-mel).
 * A window with 96 tokens is then log-mel + encoder + 96 × per token, as its figures come apart.
 */
import { execFile } from "node:child_process";
import path from "node:path";
import { promisify } from "node:util";

export interface WhisperCppBuild {
  label: string;
  bin: string;
  model: string;
}

export interface WhisperCppTimings {
  mel: number;
  encoder: number;
  perToken: number;
}

/** The builds named by the environment, one per model file; none when WHISPER_CPP_BENCH is unset. */
export function whisperCppBuilds(env: NodeJS.ProcessEnv = process.env): WhisperCppBuild[] {
  if (!env.WHISPER_CPP_BENCH) return [];
  const models = (env.WHISPER_CPP_MODEL ?? "").split(",").filter(Boolean);
  if (models.length === 0) throw new Error("WHISPER_CPP_BENCH is set: WHISPER_CPP_MODEL must name the ggml model file(s).");
  return models.map((model) => ({ label: path.basename(model, path.extname(model)), bin: env.WHISPER_CPP_BENCH!, model }));
}

/** whisper_print_timings' lines: `<name> time = <ms> ms` and, for runs, `/ <n> runs (<ms> ms per run)`. */
function timingsOf(output: string): Map<string, { total: number; perRun: number | null }> {
  const timings = new Map<string, { total: number; perRun: number | null }>();
  for (const match of output.matchAll(/(\w+) time =\s*([\d.]+) ms(?: \/\s*\d+ runs \(\s*([\d.]+) ms per run\))?/g)) {
    timings.set(match[1]!, { total: Number(match[2]), perRun: match[3] === undefined ? null : Number(match[3]) });
  }
  return timings;
}

export async function runWhisperCpp(build: WhisperCppBuild, wavFile: string): Promise<WhisperCppTimings> {
  const run = async (tool: string, args: string[]) => {
    const { stdout, stderr } = await promisify(execFile)(path.join(build.bin, tool), ["-m", build.model, "-t", "2", ...args], { encoding: "utf8", maxBuffer: 16 << 20 });
    return timingsOf(`${stdout}\n${stderr}`);
  };
  const bench = await run("whisper-bench", []);
  const cli = await run("whisper-cli", ["-f", wavFile, "-l", "en", "-nt"]);
  const encoder = bench.get("encode")?.total;
  const perToken = bench.get("decode")?.perRun;
  const mel = cli.get("mel")?.total;
  if (encoder === undefined || perToken == null || mel === undefined) throw new Error(`whisper.cpp's timings were not found in its output (${build.bin})`);
  return { mel, encoder, perToken };
}
