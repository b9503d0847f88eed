import { z } from "zod";
import type { Db } from "../db/client";
import { asUser } from "../db/rls";
import { requireSpeechKeyAdmin } from "../identity/api-keys";
import { SPEECH_MODEL_IDS } from "./config";
import { assessSpeech } from "./readiness";
import { getSpeechService } from "./service";

/** The speech service's state as the web app reads it: the dictation button's, and a school admin's Settings. */

export const dictationStatusOutput = z.object({ available: z.boolean(), reason: z.string().nullable() });

const modelId = z.enum(SPEECH_MODEL_IDS);

export const serviceStatusOutput = z.object({
  status: z.enum(["healthy", "unhealthy"]),
  /** Some model can serve (GET /v1/health/ready's 200). */
  ready: z.boolean(),
  /** Why it is unhealthy, for whoever runs the server: folders and settings. */
  reasons: z.array(z.string()),
  default_model: modelId,
  dictation: dictationStatusOutput,
  models: z.array(z.object({ id: modelId, status: z.enum(["healthy", "unhealthy"]), source: z.string(), from: z.enum(["disk", "download"]).nullable(), reason: z.string().nullable() })),
});

/** Whether dictation can work on this server, and if not a sentence for the teacher (the marking screen's button). */
export async function dictationStatus(): Promise<z.input<typeof dictationStatusOutput>> {
  const { dictation } = await assessSpeech(getSpeechService());
  return dictation.available ? { available: true, reason: null } : { available: false, reason: dictation.reason };
}

/**
 * The speech service's state for a school admin's Settings: what works, and why not (the server's, not
 * a school's). Who asks is judged as them first (403 for anyone but a school admin); the service is
 * assessed after that transaction has ended.
 */
export async function speechServiceStatus(db: Db, userId: string): Promise<z.input<typeof serviceStatusOutput>> {
  await asUser(db, userId, (tx) => requireSpeechKeyAdmin(tx, "sees the speech service's state"));
  const state = await assessSpeech(getSpeechService());
  return {
    status: state.status,
    ready: state.ready,
    reasons: state.reasons,
    default_model: state.defaultModel,
    dictation: state.dictation.available ? { available: true, reason: null } : { available: false, reason: state.dictation.reason },
    models: SPEECH_MODEL_IDS.map((id) => ({ id, status: state.models[id].status, source: state.models[id].source, from: state.models[id].from, reason: state.models[id].reason ?? null })),
  };
}
