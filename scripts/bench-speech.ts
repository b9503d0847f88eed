/**
 * bench:speech — the speech engine on this machine, with the random-weight tiny model (q8) and a
 * fixed 96 decoded tokens per 30 s window, so that every run does the same work:
 *   - real-time factor (RTF) of one request, and of 4 concurrent ones, through the HTTP API;
 *   - the encoder's and the per-token cost, from the engine's own timings;
 *   - /v1/health latency while two transcriptions run (the event loop must stay free);
 *   - peak RSS of the process (the worker threads included) with tiny loaded;
 *   - WebSocket latency from the end of an utterance to its final segment, with the Silero VAD's
 *     endpointing and with the energy gate it replaced (same run, rounds alternating);
 *   - the VAD's own cost: per 32 ms chunk of one stream, and for ten minutes of a file;
 *   - the same 30 s through a plain transformers.js `pipeline('automatic-speech-recognition')`, and
 *     the ratio.
 * API keys are not checked here (no database): the figures are the engine's. Results go to
 * docs/benchmarks.md between <!-- bench:speech --> markers.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import WebSocket from "ws";
import { parseEnv } from "../server/env";
import { speechConfigFromEnv } from "../server/speech/config";
import { createSpeechHandler } from "../server/speech/http";
import { REALTIME_PATH } from "../server/speech/realtime/dictation";
import { createRealtimeUpgradeHandler } from "../server/speech/realtime/upgrade";
import { createSpeechService, engineSettings } from "../server/speech/service";
import type { EndpointingMethod } from "../server/speech/vad/endpointer";
import { VAD_CHUNK_SAMPLES, VadStream, speechProbabilities } from "../server/speech/vad/silero";
import { writeBenchmarkSection } from "./benchmarks-doc";
import { type WhisperCppTimings, runWhisperCpp, whisperCppBuilds } from "./bench-whisper-cpp";

const MODEL_FOLDER = process.env.BENCH_SPEECH_MODEL ?? "whisper-tiny-random";
const TOKENS_PER_WINDOW = 96;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const WINDOW_SECONDS = 30;

const config = speechConfigFromEnv(
  parseEnv({
    ...process.env,
    SPEECH_MODEL_TINY: MODEL_FOLDER,
    SPEECH_DEFAULT_MODEL: "tiny",
    ALLOW_REMOTE_MODELS: process.env.ALLOW_REMOTE_MODELS ?? "false",
    SPEECH_MAX_NEW_TOKENS: String(TOKENS_PER_WINDOW),
    SPEECH_FALLBACK_TEMPERATURES: "off",
    SPEECH_QUEUE_MAX: "16",
    SPEECH_RATE_LIMIT_RPM: "0",
    SPEECH_RATE_LIMIT_AUDIO_SECONDS: "0",
    LOG_LEVEL: "warn",
  }),
);

const fixtures = path.join(import.meta.dirname, "..", "tests", "fixtures", "audio");

/** `seconds` of the speech fixture, repeated, as 16 kHz mono s16 PCM. */
function speechPcm(seconds: number): Buffer {
  const wav = fs.readFileSync(path.join(fixtures, "speech.wav"));
  const at = wav.indexOf("data", 12, "latin1");
  const pcm = wav.subarray(at + 8, at + 8 + wav.readUInt32LE(at + 4));
  const out = Buffer.alloc(Math.round(seconds * 16000) * 2);
  for (let offset = 0; offset < out.length; offset += pcm.length) pcm.copy(out, offset, 0, Math.min(pcm.length, out.length - offset));
  return out;
}

function wav(pcm: Buffer): Buffer {
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(36 + pcm.length, 4);
  header.write("WAVEfmt ", 8, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(16000, 24);
  header.writeUInt32LE(32000, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(pcm.length, 40);
  return Buffer.concat([header, pcm]);
}

/** The machine is shared: latencies are reported as the best of the rounds (as bench:db does). */
const best = (values: number[]) => Math.min(...values);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const percentile = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]!;
const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 0)} ms`;
const sleep = (duration: number) => new Promise((resolve) => setTimeout(resolve, duration));

const sectionIntro = [
  "## bench:speech — the speech engine (Whisper on transformers.js, worker threads)",
  "",
  "`npm run bench:speech` (needs `whisper-tiny-random` in `MODELS_DIR` or `../shared/models`). The random-weight",
  "tiny model costs what whisper-tiny costs; every window decodes exactly 96 tokens so runs compare.",
  "",
  "whisper.cpp beside it, on the same weights: build it from source (`cmake -B build -DGGML_NATIVE=ON",
  "-DCMAKE_BUILD_TYPE=Release && cmake --build build --target whisper-bench whisper-cli`, tag v1.9.3), convert the",
  "weights with `../shared/models/tools/convert_random_to_ggml.py` (Debian's `python3-torch`), then run with",
  "`WHISPER_CPP_BENCH=<build>/bin WHISPER_CPP_MODEL=<q8_0.bin>,<f16.bin>`. Without them the whisper.cpp rows are absent.",
  "On this machine the q8_0 model stops with an illegal instruction in ggml's AMX path (the CPU lists AMX, the",
  "virtual machine does not grant it): configure with `-DCMAKE_C_FLAGS=\"-mno-amx-tile -mno-amx-int8 -mno-amx-bf16\"`",
  "and the same `CMAKE_CXX_FLAGS`.",
].join("\n");

async function main() {
  if (!fs.existsSync(path.join(config.modelsDir, MODEL_FOLDER, "config.json"))) {
    console.error(`No ${MODEL_FOLDER} in ${config.modelsDir}: set MODELS_DIR.`);
    process.exit(1);
  }
  if (process.env.BENCH_SPEECH_ONLY === "websocket") {
    // The socket's figures alone (a quick comparison on a shared machine); docs/benchmarks.md is not written.
    const pcm = speechPcm(WINDOW_SECONDS);
    const { wsLatencies, vadPerChunk, vadFile } = await measureRealtime(Float32Array.from({ length: pcm.length / 2 }, (_, i) => pcm.readInt16LE(i * 2) / 32768));
    const show = (values: number[]) => `best ${ms(best(values))}, median ${ms(median(values))} (${values.map((value) => value.toFixed(0)).join(", ")})`;
    console.log(`WebSocket end of utterance → final, Silero VAD: ${show(wsLatencies.vad)}`);
    console.log(`WebSocket end of utterance → final, energy gate: ${show(wsLatencies.energy)}`);
    console.log(`VAD ÷ energy (medians): ${(median(wsLatencies.vad) / median(wsLatencies.energy)).toFixed(2)}×; VAD ${ms(vadPerChunk)} per chunk, 10 min of a file ${ms(best(vadFile))}; load ${os.loadavg()[0]!.toFixed(1)}`);
    process.exit(0);
  }
  const service = createSpeechService(config, { authenticate: async () => "bench", engine: { minNewTokens: TOKENS_PER_WINDOW } });
  const handler = createSpeechHandler(service);
  const server = http.createServer((request, response) => void handler(request, response));
  server.keepAliveTimeout = 120_000; // the client reuses connections across the phases
  const realtime = createRealtimeUpgradeHandler(service);
  server.on("upgrade", (request, socket, head) => realtime(request, socket, head));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const window = wav(speechPcm(WINDOW_SECONDS));
  const transcribe = async (audio: Buffer) => {
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(audio)]), "bench.wav");
    form.append("model", "tiny");
    form.append("language", "en");
    const started = performance.now();
    const response = await fetch(`${base}/v1/audio/transcriptions`, { method: "POST", headers: { authorization: "Bearer bench" }, body: form });
    if (!response.ok) throw new Error(`transcription failed: ${response.status} ${await response.text()}`);
    await response.json();
    return performance.now() - started;
  };

  // Warm-up: loads the model (measured) and runs once.
  const loadStarted = performance.now();
  await transcribe(window);
  const firstRequest = performance.now() - loadStarted;

  // One request at a time; the engine's own split of the cost, from a direct pool call.
  const single: number[] = [];
  for (let round = 0; round < ROUNDS; round++) single.push(await transcribe(window));
  const samples = new Float32Array(WINDOW_SECONDS * 16000);
  const pcm = speechPcm(WINDOW_SECONDS);
  const split = [];
  for (let round = 0; round < ROUNDS; round++) {
    for (let i = 0; i < samples.length; i++) samples[i] = pcm.readInt16LE(i * 2) / 32768;
    const result = await service.pool.transcribe({
      model: "tiny",
      source: MODEL_FOLDER,
      samples: samples.slice(),
      task: "transcribe",
      language: "en",
      temperature: 0,
      wordTimestamps: false,
    });
    split.push(result.timings);
  }
  const encoder = best(split.map((t) => t.encoder));
  const features = best(split.map((t) => t.features));
  const firstStep = best(split.map((t) => t.firstStep));
  const decode = best(split.map((t) => t.decode));
  const tokens = split[0]!.tokens;
  // Per token: the decode's time over its tokens (its first step feeds the prompt).
  const perToken = split.map((t) => t.decode / t.tokens);
  // A whole window: log-mel, encoder, the language/no-speech step and the decode, inside the engine.
  const wholeWindow = split.map((t) => t.features + t.encoder + t.firstStep + t.decode);

  // Four at once.
  const concurrentStarted = performance.now();
  const concurrentLatencies = await Promise.all([0, 1, 2, 3].map(() => transcribe(window)));
  const concurrentWall = performance.now() - concurrentStarted;

  // Health while two transcriptions run.
  const healthLatencies: number[] = [];
  let running = true;
  const busy = Promise.all([transcribe(wav(speechPcm(60))), transcribe(wav(speechPcm(60)))]).finally(() => (running = false));
  while (running) {
    const started = performance.now();
    const response = await fetch(`${base}/v1/health`);
    await response.json();
    healthLatencies.push(performance.now() - started);
    await sleep(10);
  }
  await busy;

  const peakRssMb = process.resourceUsage().maxRSS / 1024;

  // A dictation's short request, alone and while a 5-minute file is being transcribed (priorities);
  // after the peak RSS is read, as that figure is for the engine's usual work.
  const dictationSamples = samples.slice(0, 3 * 16000);
  for (let i = 0; i < dictationSamples.length; i++) dictationSamples[i] = pcm.readInt16LE(i * 2) / 32768;
  const dictate = async () => {
    const started = performance.now();
    await service.pool.transcribe(
      { model: "tiny", source: MODEL_FOLDER, samples: dictationSamples.slice(), task: "transcribe", language: "en", temperature: 0, wordTimestamps: false },
      undefined,
      undefined,
      "interactive",
    );
    return performance.now() - started;
  };
  const dictationAlone: number[] = [];
  const dictationBesideFile: number[] = [];
  for (let round = 0; round < ROUNDS; round++) dictationAlone.push(await dictate());
  const longFile = transcribe(wav(speechPcm(300)));
  while (service.pool.load.running === 0) await sleep(5);
  for (let round = 0; round < ROUNDS; round++) dictationBesideFile.push(await dictate());
  await longFile;

  const { wsLatencies, vadPerChunk, vadFile } = await measureRealtime(samples);

  // The same window through a plain transformers.js pipeline, in a separate process (two onnxruntime
  // instances in one process disturb each other), between two blocks of Markbook requests so that both
  // see about the same machine load.
  const before: number[] = [];
  for (let round = 0; round < ROUNDS; round++) before.push(await transcribe(window));
  const plain = await runPlainPipeline(samples, ROUNDS);
  const after: number[] = [];
  for (let round = 0; round < ROUNDS; round++) after.push(await transcribe(window));
  const ours = [...before, ...after];
  server.closeAllConnections();
  server.close();
  await service.close();
  const logMel = await benchLogMel(samples);
  const sideBySide = await benchEngines(samples);

  const rtfSingle = best(single) / 1000 / WINDOW_SECONDS;
  const rtfConcurrent = concurrentWall / 1000 / (4 * WINDOW_SECONDS);
  const cpu = os.cpus()[0]?.model.trim() ?? "unknown CPU";
  const rows = [
    ["one request, 30 s window, 96 tokens: latency (best; median)", `${ms(best(single))} (${ms(median(single))})`, ""],
    ["**RTF, one request**", `**${rtfSingle.toFixed(3)}**`, "≤ 0.08"],
    ["4 concurrent requests: wall time for 4 × 30 s", ms(concurrentWall), ""],
    ["RTF, 4 concurrent (wall ÷ audio)", rtfConcurrent.toFixed(3), ""],
    ["4 concurrent: slowest request", ms(Math.max(...concurrentLatencies)), ""],
    [
      "a dictation's 3 s request (interactive): alone ÷ while a 5-minute file is transcribed (medians)",
      `${ms(median(dictationAlone))} ÷ ${ms(median(dictationBesideFile))} = ${(median(dictationBesideFile) / median(dictationAlone)).toFixed(2)}×`,
      "",
    ],
    ["features (log-mel) per window", ms(features), ""],
    ["encoder per window", ms(encoder), ""],
    ["language + no-speech step (1 decoder step, computes the cross-attention K/V)", ms(firstStep), ""],
    [`decoding, ${tokens} tokens (the prompt's step included)`, ms(decode), ""],
    ["**per decoded token** (best; median)", `**${ms(best(perToken))}** (${ms(median(perToken))})`, "≤ 3 ms"],
    [`**whole window + ${tokens} tokens** in the engine: log-mel, encoder, first step, decode (best; median)`, `**${ms(best(wholeWindow))}** (${ms(median(wholeWindow))})`, "≤ 700 ms"],
    ["first request (model load + one window)", ms(firstRequest), ""],
    [`/v1/health during 2 transcriptions: p50 / p99 (${healthLatencies.length} calls)`, `${ms(percentile(healthLatencies, 50))} / ${ms(percentile(healthLatencies, 99))}`, "p99 ≤ 25 ms"],
    ["peak RSS of the process (workers included), tiny loaded, before the pipeline comparison", `${peakRssMb.toFixed(0)} MB`, "≤ 600 MB"],
    ["**WebSocket: end of utterance → final segment, Silero VAD (best; median; 500 ms endpoint silence, the final's pass started after 120 ms)**", `**${ms(best(wsLatencies.vad))} (${ms(median(wsLatencies.vad))})**`, "≤ 0.8 s"],
    ["WebSocket: the same with the energy gate it replaced (best; median; 500 ms endpoint silence, then the final's pass)", `${ms(best(wsLatencies.energy))} (${ms(median(wsLatencies.energy))})`, ""],
    ["WebSocket: VAD ÷ energy gate (medians)", `${(median(wsLatencies.vad) / median(wsLatencies.energy)).toFixed(2)}×`, ""],
    ["Silero VAD (v6), one stream: per 32 ms chunk", ms(vadPerChunk), ""],
    ["Silero VAD (v6), 10 min of a file in batched lanes (best of 3)", ms(best(vadFile)), ""],
    ["plain `pipeline()` on the same window (best; median; own process)", `${ms(best(plain))} (${ms(median(plain))})`, ""],
    ["Markbook, one request over HTTP (best; median; the blocks before and after)", `${ms(best(ours))} (${ms(median(ours))})`, ""],
    ["Markbook ÷ plain pipeline (best; median)", `${(best(ours) / best(plain)).toFixed(2)}× (${(median(ours) / median(plain)).toFixed(2)}×)`, ""],
    ...logMel,
    ...sideBySide,
  ];
  const body = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${cpu}, Node ${process.version}; model ${MODEL_FOLDER} (q8), ` +
      `${config.workers} worker × ${config.intraOpThreads} onnxruntime threads, ${TOKENS_PER_WINDOW} tokens per window, ${ROUNDS} rounds (best, and median where shown); ` +
      `load average at the end ${os.loadavg()[0]!.toFixed(1)}.`,
    "",
    "| measure | value | target |",
    "| --- | --- | --- |",
    ...rows.map((row) => `| ${row.join(" | ")} |`),
  ].join("\n");
  console.log(body);
  writeBenchmarkSection("bench:speech", body, sectionIntro);
  process.exit(0);
}

/**
 * Engines side by side in this process (the service's workers are closed by now), the same 30 s window
 * decoded alternately, per token and per window: the decoder's logits projected in 8 bits
 * (onnx-int8-logits.ts) against the float projection of the exported graph, and whisper.cpp's own tools
 * on the same weights when a build is named (bench-whisper-cpp.ts).
 */
async function benchEngines(samples: Float32Array): Promise<string[][]> {
  const { env } = await import("@huggingface/transformers");
  const { loadWhisper, disposeWhisper } = await import("../server/speech/whisper/model");
  const { transcribeWithWhisper } = await import("../server/speech/whisper-engine");
  env.localModelPath = config.modelsDir;
  env.allowRemoteModels = false;
  const settings = { ...engineSettings(config), minNewTokens: TOKENS_PER_WINDOW };
  const engines = { int8: await loadWhisper(MODEL_FOLDER, settings), float: await loadWhisper(MODEL_FOLDER, { ...settings, floatLogits: true }) };
  if (!engines.int8.projection || engines.float.projection) throw new Error("the two engines do not project as intended");
  const builds = whisperCppBuilds();
  const wavFile = path.join(os.tmpdir(), `markbook-bench-${process.pid}.wav`);
  fs.writeFileSync(wavFile, wav(speechPcm(WINDOW_SECONDS)));
  const perToken = { int8: [] as number[], float: [] as number[] };
  const window = { int8: [] as number[], float: [] as number[] };
  const cpp = builds.map(() => [] as WhisperCppTimings[]);
  const request = { model: "tiny" as const, source: MODEL_FOLDER, samples, task: "transcribe" as const, language: "en", temperature: 0, wordTimestamps: false };
  for (let round = 0; round < 2 * ROUNDS + 1; round++) {
    const order = ["int8", "float", ...builds.map((_, index) => index)] as const;
    for (const kind of round % 2 === 0 ? order : [...order].reverse()) {
      if (typeof kind === "number") {
        const timings = await runWhisperCpp(builds[kind]!, wavFile);
        if (round > 0) cpp[kind]!.push(timings);
        continue;
      }
      const { timings } = await transcribeWithWhisper(engines[kind], request, settings, () => false);
      if (round === 0) continue; // warm-up
      perToken[kind].push(timings.decode / timings.tokens);
      window[kind].push(timings.features + timings.encoder + timings.firstStep + timings.decode);
    }
  }
  fs.rmSync(wavFile, { force: true });
  await Promise.all([disposeWhisper(engines.int8), disposeWhisper(engines.float)]);
  const rows = [
    [`per decoded token, logits in 8 bits with exact candidates (median of ${perToken.int8.length}, alternating with the next rows, one process)`, ms(median(perToken.int8)), ""],
    ["per decoded token, logits in float as exported", ms(median(perToken.float)), ""],
    ["whole window + 96 tokens: 8 bits ÷ float (medians)", `${ms(median(window.int8))} ÷ ${ms(median(window.float))} = ${(median(window.int8) / median(window.float)).toFixed(2)}×`, ""],
  ];
  builds.forEach((build, index) => {
    const runs = cpp[index]!;
    const [mel, encoder, token] = [median(runs.map((run) => run.mel)), median(runs.map((run) => run.encoder)), median(runs.map((run) => run.perToken))];
    const cppWindow = mel + encoder + TOKENS_PER_WINDOW * token;
    rows.push(
      [`whisper.cpp ${build.label} (same weights, 2 threads, its whisper-bench and whisper-cli): log-mel; encoder; per token (medians)`, `${ms(mel)}; ${ms(encoder)}; ${ms(token)}`, ""],
      [`whisper.cpp ${build.label}: window + 96 tokens (log-mel + encoder + 96 × per token); Markbook (8 bits) ÷ whisper.cpp`, `${ms(cppWindow)}; ${(median(window.int8) / cppWindow).toFixed(2)}×`, ""],
      [`per token: Markbook (8 bits) ÷ whisper.cpp ${build.label}`, `${(median(perToken.int8) / token).toFixed(2)}×`, ""],
    );
  });
  return rows;
}

/**
 * Log-mel of one 30 s window, Markbook's `logMelFeatures` against the reference it reproduces
 * (transformers.js' WhisperFeatureExtractor, `processor(samples)`), alternately in this process (the
 * engine's workers are closed by now) so that both see the same load: medians of wall and CPU time, the
 * median of the per-round ratios, and the largest difference between their numbers.
 */
async function benchLogMel(samples: Float32Array): Promise<string[][]> {
  // Imported here: the rest of the bench keeps transformers.js out of this process.
  const { AutoProcessor, env } = await import("@huggingface/transformers");
  const { logMelFeatures } = await import("../server/speech/whisper/features");
  env.localModelPath = config.modelsDir;
  env.allowRemoteModels = false;
  const processor = await AutoProcessor.from_pretrained(MODEL_FOLDER);
  const reference = async () => ((await processor(samples)) as { input_features: { data: Float32Array } }).input_features;
  const markbook = () => logMelFeatures(processor, samples);
  const time = async (run: () => Promise<unknown>) => {
    const cpu = process.cpuUsage();
    const started = performance.now();
    await run();
    const used = process.cpuUsage(cpu);
    return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 };
  };
  const ours: { wall: number; cpu: number }[] = [];
  const theirs: { wall: number; cpu: number }[] = [];
  const rounds = Math.max(3 * ROUNDS, 9);
  for (let round = -1; round < rounds; round++) {
    // Alternate which goes first; round −1 warms both up.
    const markbookFirst = round % 2 === 0;
    const first = await time(markbookFirst ? markbook : reference);
    const second = await time(markbookFirst ? reference : markbook);
    if (round < 0) continue;
    ours.push(markbookFirst ? first : second);
    theirs.push(markbookFirst ? second : first);
  }
  const a = (await markbook()).data as Float32Array;
  const b = (await reference()).data;
  let difference = 0;
  for (let i = 0; i < a.length; i++) difference = Math.max(difference, Math.abs(a[i]! - b[i]!));
  const ratio = median(ours.map((o, i) => theirs[i]!.wall / o.wall));
  const load = os.loadavg()[0]!.toFixed(1);
  const figures = (runs: { wall: number; cpu: number }[]) =>
    `${ms(median(runs.map((r) => r.wall)))} (best ${ms(best(runs.map((r) => r.wall)))}; CPU ${ms(median(runs.map((r) => r.cpu)))})`;
  return [
    [`**log-mel of a 30 s window, Markbook** (median of ${rounds}, alternating with the next row; load ${load})`, `**${figures(ours)}**`, "≤ 60 ms"],
    ["log-mel of a 30 s window, transformers.js' WhisperFeatureExtractor (the reference)", figures(theirs), ""],
    ["log-mel: reference ÷ Markbook (median of per-round ratios); largest difference", `${ratio.toFixed(1)}×; ${difference.toExponential(1)}`, "≤ 1e-4"],
  ];
}

/**
 * WebSocket, on a service of its own without the fixed token count (the model stops by itself, as in
 * use): 4 s of speech then 2 s of silence at real-time pace; time from the last voiced frame to the final
 * segment, with the VAD's endpointing and with the energy gate it replaced, rounds alternating. Then the
 * VAD's own cost on this thread: one stream chunk by chunk (the socket), ten minutes of a file (lanes).
 */
async function measureRealtime(samples: Float32Array) {
  const realtimeService = createSpeechService(config, { authenticate: async () => "bench" });
  const realtimeServers = new Map<EndpointingMethod, { server: http.Server; base: string }>();
  for (const endpointing of ["vad", "energy"] as const) {
    const realtimeServer = http.createServer();
    const realtimeHandler = createRealtimeUpgradeHandler(realtimeService, { endpointing });
    realtimeServer.on("upgrade", (request, socket, head) => realtimeHandler(request, socket, head));
    await new Promise<void>((resolve) => realtimeServer.listen(0, "127.0.0.1", resolve));
    realtimeServers.set(endpointing, { server: realtimeServer, base: `ws://127.0.0.1:${(realtimeServer.address() as AddressInfo).port}` });
  }
  const finalLatency = async (endpointing: EndpointingMethod) => {
    const ws = new WebSocket(`${realtimeServers.get(endpointing)!.base}${REALTIME_PATH}?model=tiny&language=en`, { headers: { authorization: "Bearer bench" } });
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    let speechEndedAt = 0;
    const finalAt = new Promise<number>((resolve) =>
      ws.on("message", (data) => {
        if ((JSON.parse((data as Buffer).toString()) as { type: string }).type === "final") resolve(performance.now());
      }),
    );
    const audio = Buffer.concat([speechPcm(4), Buffer.alloc(2 * 32000)]);
    const started = performance.now();
    for (let offset = 0, index = 0; offset < audio.length; offset += 3200, index++) {
      ws.send(audio.subarray(offset, offset + 3200));
      if (offset + 3200 >= 4 * 32000 && !speechEndedAt) speechEndedAt = performance.now();
      await sleep(Math.max(0, started + (index + 1) * 100 - performance.now()));
    }
    const latency = (await finalAt) - speechEndedAt;
    ws.send(JSON.stringify({ type: "end" }));
    await new Promise((resolve) => ws.once("close", resolve));
    return latency;
  };
  const wsLatencies: Record<EndpointingMethod, number[]> = { vad: [], energy: [] };
  for (let round = 0; round <= ROUNDS; round++) {
    for (const endpointing of round % 2 ? (["energy", "vad"] as const) : (["vad", "energy"] as const)) {
      const latency = await finalLatency(endpointing);
      if (round > 0) wsLatencies[endpointing].push(latency); // round 0 loads the model
    }
  }
  for (const { server: realtimeServer } of realtimeServers.values()) realtimeServer.close();
  await realtimeService.close();

  // The VAD's own cost on this thread: one stream chunk by chunk (the socket), and ten minutes of a file (batched lanes).
  const vadAudio = Float32Array.from({ length: 600 * 16000 }, (_, i) => samples[i % samples.length]!);
  const stream = new VadStream();
  const chunkStarted = performance.now();
  const streamChunks = 30 * 16000 / VAD_CHUNK_SAMPLES;
  for (let k = 0; k < streamChunks; k++) stream.probability(vadAudio.subarray(k * VAD_CHUNK_SAMPLES, (k + 1) * VAD_CHUNK_SAMPLES));
  const vadPerChunk = (performance.now() - chunkStarted) / streamChunks;
  const vadFile: number[] = [];
  for (let round = 0; round < 3; round++) {
    const fileStarted = performance.now();
    speechProbabilities(vadAudio);
    vadFile.push(performance.now() - fileStarted);
  }
  return { wsLatencies, vadPerChunk, vadFile };
}

/** Times a plain `pipeline('automatic-speech-recognition')` on the samples, in a child process. */
async function runPlainPipeline(samples: Float32Array, rounds: number): Promise<number[]> {
  const input = path.join(os.tmpdir(), `markbook-bench-${process.pid}.f32`);
  fs.writeFileSync(input, Buffer.from(samples.buffer, samples.byteOffset, samples.byteLength));
  const code = `
    import { execFile } from "node:child_process";
import fs from "node:fs";
    import { env, pipeline } from "@huggingface/transformers";
    env.localModelPath = ${JSON.stringify(config.modelsDir)};
    env.allowRemoteModels = false;
    const bytes = fs.readFileSync(${JSON.stringify(input)});
    const audio = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4);
    const asr = await pipeline("automatic-speech-recognition", ${JSON.stringify(MODEL_FOLDER)}, {
      dtype: "q8", session_options: { intraOpNumThreads: ${config.intraOpThreads} } });
    const times = [];
    for (let round = 0; round <= ${rounds}; round++) {
      const started = performance.now();
      await asr(audio.slice(), { language: "en", task: "transcribe", max_new_tokens: ${TOKENS_PER_WINDOW}, min_new_tokens: ${TOKENS_PER_WINDOW} });
      if (round > 0) times.push(performance.now() - started);
    }
    process.stdout.write(JSON.stringify(times));`;
  try {
    const { stdout } = await promisify(execFile)(process.execPath, ["--input-type=module", "-e", code], { cwd: process.cwd(), encoding: "utf8" });
    return JSON.parse(stdout.trim().split("\n").at(-1)!) as number[];
  } finally {
    fs.rmSync(input, { force: true });
  }
}

await main();
