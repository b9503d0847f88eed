/** One inference thread: loads Whisper models on demand (single-flight), runs jobs one at a time. */
import { parentPort, workerData } from "node:worker_threads";
import { env as transformersEnv } from "@huggingface/transformers";
import type { EngineSettings, FromWorker, ToWorker } from "./engine-protocol";
import type { Segment } from "./formats";
import { downloadFailureReason, findModelFolder, missingModelMessage } from "./model-install";
import { CancelledError, type LoadedWhisper, disposeWhisper, loadWhisper, transcribeWithWhisper } from "./whisper-engine";

const port = parentPort!;
const settings = (workerData as { settings: EngineSettings }).settings;
const send = (message: FromWorker) => port.postMessage(message);
const log = (level: "info" | "warn" | "error", message: string) => send({ type: "log", level, message });

transformersEnv.localModelPath = settings.modelsDir;
transformersEnv.allowLocalModels = true;
transformersEnv.allowRemoteModels = settings.allowRemoteModels;
transformersEnv.remoteHost = `${settings.hubUrl}/`;

interface ModelSlot {
  loading: Promise<LoadedWhisper>;
  /** The folder with its files when the load began; null: it was a download. */
  folder: string | null;
  lastUsed: number;
  active: number;
}
const models = new Map<string, ModelSlot>();
const cancelled = new Set<number>();

/**
 * Priorities (engine-pool.ts): while an interactive job runs here, the batch job beside it waits at its
 * next encoder pass or decoder step, and goes on when no interactive job is left.
 */
let interactiveRunning = 0;
let resumeBatch: (() => void)[] = [];
async function batchTurn() {
  while (interactiveRunning > 0) await new Promise<void>((resolve) => resumeBatch.push(resolve));
}
function interactiveDone() {
  interactiveRunning--;
  if (interactiveRunning > 0) return;
  const waiting = resumeBatch;
  resumeBatch = [];
  for (const resume of waiting) resume();
}

/** Logs download progress (a quarter at a time); a model read from MODELS_DIR logs nothing. */
function progressLogger(source: string, onDisk: boolean) {
  const reported = new Map<string, number>();
  return (event: { status: string; file?: string; progress?: number }) => {
    if (onDisk) return;
    if (event.status === "initiate" && event.file) log("info", `speech model ${source}: fetching ${event.file}`);
    if (event.status === "progress" && event.file && typeof event.progress === "number") {
      const step = Math.floor(event.progress / 25) * 25;
      if (step > (reported.get(event.file) ?? -1)) {
        reported.set(event.file, step);
        log("info", `speech model ${source}: ${event.file} ${step}%`);
      }
    }
  };
}

/** Two jobs for the same model share one load (single-flight); a failed load is forgotten. */
function acquireModel(source: string): ModelSlot {
  let slot = models.get(source);
  if (!slot) {
    const startedAt = Date.now();
    const folder = findModelFolder(settings, source, transformersEnv.cacheDir);
    const loading = loadWhisper(source, settings, progressLogger(source, folder !== null)).then(
      (loaded) => {
        log("info", `speech model ${source} loaded in ${Date.now() - startedAt} ms`);
        send({ type: "model", source, state: "loaded" });
        return loaded;
      },
      (error: unknown) => {
        models.delete(source);
        throw error;
      },
    );
    slot = { loading, folder, lastUsed: Date.now(), active: 0 };
    models.set(source, slot);
  }
  slot.active++;
  return slot;
}

function release(slot: ModelSlot) {
  slot.active--;
  slot.lastUsed = Date.now();
}

// Idle unload: a model nobody used for MODEL_TTL_SECONDS gives its memory back.
const ttlMs = settings.modelTtlSeconds * 1000;
setInterval(
  () => {
    for (const [source, slot] of models) {
      if (slot.active === 0 && Date.now() - slot.lastUsed >= ttlMs) {
        models.delete(source);
        void slot.loading.then(disposeWhisper).then(
          () => {
            log("info", `speech model ${source} unloaded after ${settings.modelTtlSeconds} s idle`);
            send({ type: "model", source, state: "unloaded" });
          },
          () => {},
        );
      }
    }
  },
  Math.min(ttlMs, 30_000),
).unref();

/**
 * A model that could not be loaded: one that had to be downloaded is the client's to change (400
 * model_not_found, saying which settings install it); a complete folder on disk that fails to load is
 * this server's fault (500), which names the folder and leaves the details to the log.
 */
function describeLoadFailure(error: unknown, model: string, source: string, folder: string | null) {
  const message = error instanceof Error ? error.message : String(error);
  if (folder) {
    log("error", `speech model ${source} in ${folder} could not be loaded: ${error instanceof Error ? (error.stack ?? message) : message}`);
    return {
      code: "internal",
      message: `The model '${model}' could not be loaded from ${folder} (SPEECH_MODEL_${model.toUpperCase()}): its files may be damaged; the server's log says why.`,
    };
  }
  const reason = settings.allowRemoteModels ? downloadFailureReason(error, settings.hubUrl) : undefined;
  log("warn", `speech model ${source} cannot be loaded: not complete in ${settings.modelsDir}${reason ? `, and ${reason}` : ""}`);
  return { code: "invalid", openaiCode: "model_not_found", param: "model", message: missingModelMessage(model, source, settings, reason) };
}

function describeError(error: unknown) {
  if (error instanceof CancelledError) return { code: "cancelled", message: "cancelled" };
  const withCode = error as { code?: unknown; param?: string; message?: string };
  if (withCode.code === "invalid") return { code: "invalid", message: String(withCode.message), param: withCode.param };
  const message = error instanceof Error ? error.message : String(error);
  log("error", `speech engine failure: ${error instanceof Error ? (error.stack ?? message) : message}`);
  return { code: "internal", message: "The speech engine failed on this request." };
}

/** Answers one message; every failure goes back to the pool as an error message, so nothing rejects. */
async function handle(message: ToWorker) {
  if (message.type === "cancel") {
    cancelled.add(message.id);
    return;
  }
  const { model, source } = message.type === "transcribe" ? message.request : message;
  const slot = acquireModel(source);
  try {
    let loaded: LoadedWhisper;
    try {
      loaded = await slot.loading;
    } catch (error) {
      send({ type: "error", id: message.id, error: describeLoadFailure(error, model, source, slot.folder) });
      return;
    }
    if (message.type === "probe") {
      send({ type: "probed", id: message.id, wordTimestamps: loaded.supportsWordTimestamps });
      return;
    }
    const { id, request } = message;
    const onWindow = request.progress ? (segments: Segment[]) => send({ type: "window", id, segments }) : undefined;
    const interactive = request.priority === "interactive";
    if (interactive) interactiveRunning++;
    try {
      const result = await transcribeWithWhisper(loaded, request, settings, () => cancelled.has(id), onWindow, interactive ? undefined : batchTurn);
      send({ type: "result", id: message.id, result });
    } finally {
      if (interactive) interactiveDone();
    }
  } catch (error) {
    send({ type: "error", id: message.id, error: describeError(error) });
  } finally {
    release(slot);
    cancelled.delete(message.id);
  }
}

port.on("message", (message: ToWorker) => void handle(message));

send({ type: "ready" });
