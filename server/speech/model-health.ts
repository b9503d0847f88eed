/**
 * Which models a request can use now, for /v1/health: a model is usable when its files are on disk, or
 * when downloads are on and the hub answers for it (checked with one HEAD request, kept for a minute).
 * Nothing is loaded for it: a health check must stay cheap.
 */
import { SPEECH_MODEL_IDS, type SpeechConfig, type SpeechModelId } from "./config";
import { downloadFailureReason, findModelFolder, whyNotOnDisk } from "./model-install";

const HUB_PROBE_TTL_MS = 60_000;
const HUB_PROBE_TIMEOUT_MS = 3_000;

export interface ModelHealth {
  status: "healthy" | "unhealthy";
  /** The folder under MODELS_DIR or hub id (SPEECH_MODEL_<ID>). */
  source: string;
  /** Where it loads from: `disk` (MODELS_DIR, the download cache) or `download` (the hub, on first use). */
  from: "disk" | "download" | null;
  /** Why it cannot be loaded, when it cannot. */
  reason?: string;
}

type Probe = { ok: true } | { ok: false; reason: string };

/** Asks the hub whether it would give the model's configuration (a redirect to its storage counts as yes). */
async function probeHub(hubUrl: string, source: string): Promise<Probe> {
  try {
    const response = await fetch(`${hubUrl}/${source}/resolve/main/config.json`, { method: "HEAD", signal: AbortSignal.timeout(HUB_PROBE_TIMEOUT_MS) });
    if (response.ok) return { ok: true };
    if (response.status === 404) return { ok: false, reason: `${hubUrl} has no model ${source}` };
    return { ok: false, reason: `${hubUrl} refused the download (HTTP ${response.status})` };
  } catch (error) {
    if (error instanceof Error && error.name === "TimeoutError") return { ok: false, reason: `${hubUrl} did not answer within ${HUB_PROBE_TIMEOUT_MS / 1000} s` };
    return { ok: false, reason: downloadFailureReason(error, hubUrl) };
  }
}

export interface ModelHealthCheck {
  /** Every model id's health; the default model's decides the service's. */
  check(): Promise<Record<SpeechModelId, ModelHealth>>;
}

export function createModelHealthCheck(config: SpeechConfig): ModelHealthCheck {
  const probes = new Map<string, { at: number; result: Promise<Probe> }>();
  const probe = (source: string) => {
    const cached = probes.get(source);
    if (cached && Date.now() - cached.at <= HUB_PROBE_TTL_MS) return cached.result;
    const result = probeHub(config.hubUrl, source);
    probes.set(source, { at: Date.now(), result });
    return result;
  };

  async function modelHealth(source: string): Promise<ModelHealth> {
    if (findModelFolder(config, source)) return { status: "healthy", source, from: "disk" };
    const notHere = whyNotOnDisk(config, source);
    if (!config.allowRemoteModels) return { status: "unhealthy", source, from: null, reason: `${notHere}, and downloads are off (ALLOW_REMOTE_MODELS=false)` };
    const hub = await probe(source);
    return hub.ok ? { status: "healthy", source, from: "download" } : { status: "unhealthy", source, from: null, reason: `${notHere}, and ${hub.reason}` };
  }

  return {
    async check() {
      const entries = await Promise.all(SPEECH_MODEL_IDS.map(async (id) => [id, await modelHealth(config.modelSources[id])] as const));
      return Object.fromEntries(entries) as Record<SpeechModelId, ModelHealth>;
    },
  };
}
