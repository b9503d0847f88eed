/**
 * Timeouts for slow tests, sized from what their work costs rather than from a quiet machine's wall
 * clock. Costs are CPU-seconds measured on the 2-core test machine (process.cpuUsage, which counts
 * worker threads, or `time` for a child process); wall time follows from how busy the machine is.
 */

/**
 * Wall-clock seconds allowed per CPU-second of work. Under a load average of 7 on two cores a runnable
 * thread gets about a quarter of a core (≈ 4× its CPU time as wall time; 3.5–4.5× was measured at a
 * load of 19, where not all the load is CPU-bound); 10 leaves a factor of 2.5 on top.
 */
const WALL_PER_CPU_SECOND = 10;

/** vitest.config.ts's testTimeout: nothing gets less than a plain test. */
const PLAIN_TEST_MS = 30_000;

/** Measured CPU-seconds of the slow pieces tests are made of. */
export const COST = {
  /** Loading whisper-tiny-random (q8) into a speech engine worker: about 2.8 s. */
  speechModelLoad: 3,
  /** One decode of tests/fixtures/audio/speech.wav (one 30 s window, 24 new tokens) with ffmpeg: 1.7–2.1 s. */
  speechDecode: 2,
  /** One run of the CLI (tsx, PGlite opening an existing data folder, the command): 5.9–6.1 s. */
  cliRun: 6,
  /** The first CLI run on a new data folder also creates and migrates the database: about 15 s. */
  cliFirstRun: 15,
  /**
   * Building and running two onnxruntime sessions of whisper-tiny-random's decoder (speech-engine-memory):
   * 1.5–3 s; of its encoder, with the attention fused in one: about 13 s.
   */
  onnxDecoderComparison: 3,
  onnxEncoderComparison: 13,
  /** A vitest run of one check with the suite's global setup (PGlite migrated, no PostgreSQL): about 11 s. */
  vitestRunWithSetup: 12,
  /** Opening a migrated database (a PGlite data folder, or a PostgreSQL pool) to check what a test stored. */
  databaseOpen: 1,
} as const;

/**
 * onnxruntime's threads spin while they wait for each other, so on a busy machine its wall time grows
 * faster than other work's (26 s of wall for 3 CPU-seconds was seen at a load of 19): twice the allowance.
 */
export const ONNX_SPIN = 2;

/** The timeout for a test (or hook) whose work costs `cpuSeconds` CPU-seconds. */
export function timeoutFor(cpuSeconds: number): number {
  return Math.max(PLAIN_TEST_MS, Math.ceil(cpuSeconds * WALL_PER_CPU_SECOND) * 1000);
}

/** The timeout for speech work: model loads and decodes of speech.wav (a 90 s clip is three decodes). */
export function speechTimeout({ loads = 0, decodes = 0 }: { loads?: number; decodes?: number }): number {
  return timeoutFor(loads * COST.speechModelLoad + decodes * COST.speechDecode);
}
