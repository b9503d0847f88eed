/**
 * What the speech service can do now, in one place for its four readers: GET /v1/health (the contract's
 * healthy/unhealthy, always 200: docs/spec/speech-api.md "GET /v1/health"), GET /v1/health/ready (a load balancer's
 * 200/503), GET /v1/models (only
 * the models that can load) and the web app (the dictation button, the admin's Settings). Nothing is
 * loaded to find out: a model can serve when its files are on disk and readable, or when downloads are
 * on and the hub answers for it (model-health.ts).
 */
import { SPEECH_MODEL_IDS, type SpeechModelId } from "./config";
import type { ModelHealth } from "./model-health";
import type { SpeechService } from "./service";

export interface SpeechReadiness {
  /** `healthy` when ffmpeg runs, the engine is up and the default model can be loaded (/v1/health's status). */
  status: "healthy" | "unhealthy";
  /** Some request can be served: the engine is up and at least one model can be loaded (ffmpeg is not needed by the sockets' raw PCM). */
  ready: boolean;
  defaultModel: SpeechModelId;
  /** The models that can be loaded now, in the contract's order (docs/spec/speech-api.md "What the service does"). */
  loadable: SpeechModelId[];
  models: Record<SpeechModelId, ModelHealth>;
  /** Why it is unhealthy, for an operator: names folders and settings (never shown to the public). */
  reasons: string[];
  /** Why it is not ready, in words that name no folder or setting (a keyless caller may read them). */
  publicReasons: string[];
  /** The marking screen's dictation (the default model over /v1/websocket, raw PCM: no ffmpeg). */
  dictation: { available: true } | { available: false; reason: string };
}

export async function assessSpeech(service: SpeechService): Promise<SpeechReadiness> {
  const [ffmpeg, models] = await Promise.all([service.ffmpegHealth(), service.modelHealth.check()]);
  const engine = service.pool.health;
  const defaultModel = service.config.defaultModel;
  const loadable = SPEECH_MODEL_IDS.filter((id) => models[id].status === "healthy");
  const defaultHealth = models[defaultModel];
  const reasons = [
    ffmpeg.ok ? null : ffmpeg.reason,
    engine.ok ? null : engine.reason,
    defaultHealth.status === "unhealthy" ? `the default model '${defaultModel}' (SPEECH_DEFAULT_MODEL) cannot be loaded: ${defaultHealth.reason}` : null,
  ].filter((reason) => reason !== null);
  const publicReasons = [
    engine.ok ? null : "the speech engine is not running",
    loadable.length === 0 ? "no speech model can be loaded on this server" : null,
  ].filter((reason) => reason !== null);

  let dictation: SpeechReadiness["dictation"] = { available: true };
  if (!engine.ok) dictation = { available: false, reason: "Dictation is not available: the speech engine on this server is not running." };
  else if (defaultHealth.status === "unhealthy") {
    dictation = {
      available: false,
      reason:
        loadable.length === 0
          ? "Dictation is not available: this server has no speech model installed."
          : "Dictation is not available: the speech model it uses is not installed on this server.",
    };
  }
  return { status: reasons.length === 0 ? "healthy" : "unhealthy", ready: publicReasons.length === 0, defaultModel, loadable, models, reasons, publicReasons, dictation };
}

/** "a; b" → "A; b." (a list of clauses as one sentence). */
export const asSentence = (clauses: string[]) => {
  const text = clauses.join("; ");
  return text ? `${text[0]!.toUpperCase()}${text.slice(1)}.` : "";
};
