/**
 * Silero VAD (v6, the ONNX file shipped in `@ricky0123/vad-web`'s dist/) on the onnxruntime-node that
 * transformers.js brings: a speech probability for each 32 ms of 16 kHz audio. Loaded once per thread,
 * on first use (2.3 MB of model, a few hundred bytes of state per stream).
 */
import { createRequire } from "node:module";
import path from "node:path";
import { SAMPLE_RATE } from "../audio";

/** Samples the model takes per step at 16 kHz (32 ms). */
export const VAD_CHUNK_SAMPLES = 512;
/** The previous step's last samples, put before each chunk: the model was trained so (Silero's own wrapper does it). */
const CONTEXT_SAMPLES = 64;
const STATE_SIZE = 2 * 128;
const VAD_MODEL_FILE = "silero_vad_v6.onnx";

type OrtTensor = { data: Float32Array; dims: readonly number[] };
type TensorConstructor = new (type: string, data: Float32Array | BigInt64Array, dims: number[]) => unknown;
/** onnxruntime-node's native session (dist/binding.d.ts: "a simple synchronized inference session object wrap"). */
interface NativeSession {
  loadModel(file: string, options: object): void;
  run(feeds: Record<string, unknown>, fetches: Record<string, null>, options: object): Record<string, OrtTensor | undefined>;
}
interface OrtNodeModules {
  ort: { Tensor: TensorConstructor };
  binding: { binding: { InferenceSession: new () => NativeSession }; initOrt(this: void): void };
}

interface LoadedVad {
  session: NativeSession;
  Tensor: TensorConstructor;
  sampleRate: unknown;
}

let loaded: LoadedVad | null = null;

/** The folder of the model file: dist/ of the installed `@ricky0123/vad-web` (its JavaScript is never loaded). */
function vadModelPath(): string {
  const packageJson = createRequire(import.meta.url).resolve("@ricky0123/vad-web/package.json");
  return path.join(path.dirname(packageJson), "dist", VAD_MODEL_FILE);
}

/**
 * The session, created on first use. It runs through onnxruntime-node's native binding, synchronously:
 * the public `InferenceSession.run` makes the same synchronous native call, only deferred with
 * setImmediate, and a synchronous step lets the socket's endpointer decide on each frame as it arrives.
 * One thread, one step at a time: about 0.4 ms per 32 ms of audio.
 */
function vadSession(): LoadedVad {
  if (loaded) return loaded;
  const require = createRequire(import.meta.resolve("@huggingface/transformers"));
  const ort = require("onnxruntime-node") as OrtNodeModules["ort"];
  const { binding, initOrt } = require("onnxruntime-node/dist/binding") as OrtNodeModules["binding"];
  initOrt();
  const session = new binding.InferenceSession();
  session.loadModel(vadModelPath(), { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: "sequential", graphOptimizationLevel: "all" });
  loaded = { session, Tensor: ort.Tensor, sampleRate: new ort.Tensor("int64", BigInt64Array.from([BigInt(SAMPLE_RATE)]), []) };
  return loaded;
}

/**
 * Runs the model on `lanes` streams at once (a batch): `input` holds, per lane, context + chunk;
 * `state` the lanes' recurrent state, replaced by the new one. Returns each lane's probability.
 */
function step(input: Float32Array, state: Float32Array, lanes: number): { probabilities: Float32Array; state: Float32Array } {
  const { session, Tensor, sampleRate } = vadSession();
  const out = session.run(
    {
      input: new Tensor("float32", input, [lanes, CONTEXT_SAMPLES + VAD_CHUNK_SAMPLES]),
      state: new Tensor("float32", state, [2, lanes, 128]),
      sr: sampleRate,
    },
    { output: null, stateN: null },
    {},
  );
  return { probabilities: out.output!.data, state: out.stateN!.data };
}

/** One audio stream through the model, chunk after chunk (the socket: one per session). */
export class VadStream {
  private state = new Float32Array(STATE_SIZE);
  private readonly input = new Float32Array(CONTEXT_SAMPLES + VAD_CHUNK_SAMPLES);

  /** The probability that these 512 samples (32 ms) are speech. */
  probability(chunk: Float32Array): number {
    this.input.set(chunk.subarray(0, VAD_CHUNK_SAMPLES), CONTEXT_SAMPLES);
    const result = step(this.input, this.state, 1);
    this.state = new Float32Array(result.state);
    // The context of the next step: this chunk's last samples.
    this.input.copyWithin(0, VAD_CHUNK_SAMPLES);
    return result.probabilities[0]!;
  }
}

/** A lane is given at least this much audio; shorter audio runs as one stream (same numbers as the socket's). */
const MIN_LANE_CHUNKS = Math.ceil((60 * SAMPLE_RATE) / VAD_CHUNK_SAMPLES);
const MAX_LANES = 16;
/**
 * A lane starts this many chunks (4 s) early, their probabilities thrown away: the model's state takes
 * seconds to forget where it started (after 0.5 s, probabilities still differed by up to 0.46 from one
 * stream's; after 4 s, by 0.013).
 */
const WARM_UP_CHUNKS = 125;

/**
 * Speech probability of every 32 ms chunk of a whole recording (the last partial chunk padded with
 * zeros). Long audio is cut into up to 16 lanes of at least a minute that run as one batch: about
 * 3× less time than one stream on 2 cores; each lane starts 4 s early so that no chunk is judged
 * with a cold state.
 */
export function speechProbabilities(samples: Float32Array, isCancelled: () => boolean = () => false): Float32Array {
  const chunks = Math.ceil(samples.length / VAD_CHUNK_SAMPLES);
  const probabilities = new Float32Array(chunks);
  const lanes = Math.max(1, Math.min(MAX_LANES, Math.floor(chunks / MIN_LANE_CHUNKS)));
  const perLane = Math.ceil(chunks / lanes);
  const width = CONTEXT_SAMPLES + VAD_CHUNK_SAMPLES;
  const input = new Float32Array(lanes * width);
  let state = new Float32Array(lanes * STATE_SIZE);
  const firstOf = (lane: number) => lane * perLane;
  const warmUp = (lane: number) => (lane === 0 ? 0 : Math.min(WARM_UP_CHUNKS, firstOf(lane)));
  const longest = Math.max(...Array.from({ length: lanes }, (_, lane) => warmUp(lane) + Math.min(perLane, chunks - firstOf(lane))));
  for (let k = 0; k < longest; k++) {
    if (k % 256 === 0 && isCancelled()) break;
    for (let lane = 0; lane < lanes; lane++) {
      const chunk = firstOf(lane) - warmUp(lane) + k;
      const row = input.subarray(lane * width, (lane + 1) * width);
      row.copyWithin(0, VAD_CHUNK_SAMPLES); // context: the lane's previous chunk's tail
      const start = chunk * VAD_CHUNK_SAMPLES;
      const piece = chunk < chunks ? samples.subarray(start, Math.min(start + VAD_CHUNK_SAMPLES, samples.length)) : new Float32Array(0);
      row.fill(0, CONTEXT_SAMPLES);
      row.set(piece, CONTEXT_SAMPLES);
    }
    const result = step(input, state, lanes);
    state = new Float32Array(result.state);
    for (let lane = 0; lane < lanes; lane++) {
      const offset = k - warmUp(lane);
      const chunk = firstOf(lane) + offset;
      if (offset >= 0 && offset < perLane && chunk < chunks) probabilities[chunk] = result.probabilities[lane]!;
    }
  }
  return probabilities;
}
