/**
 * OpenAI's realtime vocabulary as /v1/realtime reads and writes it (docs/realtime.md): the client's
 * events, the session config as the GA and the beta clients write it (read into the core's settings),
 * and the session as each dialect shows it.
 */
import { z } from "zod";
import { AppError } from "../../errors";
import { resolveRequestedModel } from "../models";
import { parseSpeechOptions, realtimeTranscriptionOptions } from "../options";
import type { SpeechService } from "../service";
import type { SessionSettings, TurnDetection } from "./protocol";

/** OpenAI's PCM16 rate; Markbook resamples it to the engine's 16 kHz. */
const INPUT_RATE = 24_000;
/** Base64 characters one append may carry (about 16 s of 24 kHz audio); a bigger one gets an `error`. */
const MAX_APPEND_CHARACTERS = 1024 * 1024;
/** OpenAI's server_vad defaults. */
export const SERVER_VAD: TurnDetection = { threshold: 0.5, paddingMs: 300, silenceMs: 500 };

// The session config, as the GA client (session.update, session.type "transcription") and the beta
// one (transcription_session.update) write it. Unknown fields are ignored, as OpenAI's other edges do.
const transcription = z.object({ model: z.string().optional(), language: z.string().nullable().optional(), prompt: z.string().nullable().optional() }).nullable();
const turnDetection = z
  .object({
    type: z.enum(["server_vad", "semantic_vad"]).optional(),
    threshold: z.number().min(0).max(1).optional(),
    prefix_padding_ms: z.number().int().min(0).max(2000).optional(),
    silence_duration_ms: z.number().int().min(100).max(10_000).optional(),
  })
  .nullable();
/** What the session should add to its events; only the logprobs are read (docs/realtime.md). */
const include = z.array(z.string()).nullable();
const LOGPROBS = "item.input_audio_transcription.logprobs";
/** The setting an `include` asks for; absent, the session keeps what it had. */
export const includeSetting = (asked: string[] | null | undefined): Partial<SessionSettings> => (asked === undefined ? {} : { logprobs: asked?.includes(LOGPROBS) ?? false });
const gaSession = z.object({
  type: z.literal("transcription", { error: 'must be "transcription": /v1/realtime serves transcription sessions only' }),
  include: include.optional(),
  audio: z
    .object({
      input: z
        .object({
          format: z.object({ type: z.string().optional(), rate: z.number().optional() }).optional(),
          transcription: transcription.optional(),
          turn_detection: turnDetection.optional(),
        })
        .optional(),
    })
    .optional(),
});
const betaSession = z.object({
  include: include.optional(),
  input_audio_format: z.string().optional(),
  input_audio_transcription: transcription.optional(),
  turn_detection: turnDetection.optional(),
});
export const clientEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("session.update"), event_id: z.string().optional(), session: gaSession }),
  z.object({ type: z.literal("transcription_session.update"), event_id: z.string().optional(), session: betaSession }),
  z.object({ type: z.literal("input_audio_buffer.append"), event_id: z.string().optional(), audio: z.string().max(MAX_APPEND_CHARACTERS, `must carry at most ${MAX_APPEND_CHARACTERS} base64 characters: send smaller appends`) }),
  z.object({ type: z.literal("input_audio_buffer.commit"), event_id: z.string().optional() }),
  z.object({ type: z.literal("input_audio_buffer.clear"), event_id: z.string().optional() }),
]);
const KNOWN_EVENTS = clientEvent.options.map((option) => option.shape.type.value);

export type Dialect = "ga" | "beta";
type Config = { format?: { type?: string; rate?: number } | string; transcription?: z.infer<typeof transcription>; turnDetection?: z.infer<typeof turnDetection> };

/** The settings a config asks for; a bad value throws, naming it as the client wrote it. */
export function settingsOf(service: SpeechService, config: Config, path: { format: string; transcription: string; turnDetection: string }): Partial<SessionSettings> {
  const settings: Partial<SessionSettings> = {};
  if (config.format !== undefined) {
    const pcm = typeof config.format === "string" ? config.format === "pcm16" : (config.format.type ?? "audio/pcm") === "audio/pcm" && (config.format.rate ?? INPUT_RATE) === INPUT_RATE;
    if (!pcm) throw new AppError("invalid", `${path.format}: only 24 kHz PCM16 is supported (${typeof config.format === "string" ? '"pcm16"' : '{"type":"audio/pcm","rate":24000}'})`, path.format);
  }
  if (config.transcription !== undefined) {
    const { model, language, prompt } = named(path.transcription, () =>
      parseSpeechOptions(realtimeTranscriptionOptions, {
        model: config.transcription?.model,
        language: config.transcription?.language ?? undefined,
        prompt: config.transcription?.prompt ?? undefined,
      }),
    );
    settings.model = named(path.transcription, () => resolveRequestedModel(service.config, model));
    settings.language = language;
    settings.prompt = prompt;
  }
  if (config.turnDetection !== undefined) {
    const turn = config.turnDetection;
    if (turn?.type === "semantic_vad") throw new AppError("invalid", `${path.turnDetection}.type: only "server_vad" (or null: commit ends an utterance) is supported`, `${path.turnDetection}.type`);
    settings.turnDetection = turn && {
      threshold: turn.threshold ?? SERVER_VAD.threshold,
      paddingMs: turn.prefix_padding_ms ?? SERVER_VAD.paddingMs,
      silenceMs: turn.silence_duration_ms ?? SERVER_VAD.silenceMs,
    };
  }
  return settings;
}

/** Runs a parse of shared options, naming the parameter by its place in the event (OpenAI's `param`). */
function named<T>(prefix: string, parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    if (!(error instanceof AppError) || !error.param) throw error;
    const param = `${prefix}.${error.param}`;
    throw new AppError(error.code, error.message.startsWith(`${error.param}:`) ? `${prefix}.${error.message}` : error.message, param, error.openaiCode);
  }
}

/** The first problem of an event that does not parse, as the one error vocabulary's 400. */
export function eventError(message: unknown, issue: z.core.$ZodIssue | undefined): AppError {
  const type = typeof message === "object" && message !== null && !Array.isArray(message) ? (message as { type?: unknown }).type : undefined;
  if (typeof type !== "string" || !(KNOWN_EVENTS as string[]).includes(type)) {
    return new AppError(
      "invalid",
      type === undefined
        ? 'Events are JSON objects with a "type".'
        : `Unsupported event type ${JSON.stringify(type).slice(0, 100)}; Markbook's /v1/realtime takes ${KNOWN_EVENTS.join(", ")}.`,
      "type",
    );
  }
  const param = issue?.path.join(".") || "type";
  return new AppError("invalid", `${param}: ${issue?.message ?? "is invalid"}`, param);
}

/** The session as the client's dialect shows it (GA: session.created/updated; beta: transcription_session.*). */
export function sessionView(dialect: Dialect, id: string, settings: SessionSettings) {
  const transcriptionView = { model: settings.model, language: settings.language ?? null, prompt: settings.prompt ?? "" };
  const turn = settings.turnDetection && {
    type: "server_vad",
    threshold: settings.turnDetection.threshold,
    prefix_padding_ms: settings.turnDetection.paddingMs,
    silence_duration_ms: settings.turnDetection.silenceMs,
  };
  const include = settings.logprobs ? [LOGPROBS] : [];
  if (dialect === "beta") {
    return { id, object: "realtime.transcription_session", input_audio_format: "pcm16", input_audio_transcription: transcriptionView, turn_detection: turn, input_audio_noise_reduction: null, include };
  }
  return {
    type: "transcription",
    id,
    object: "realtime.transcription_session",
    audio: { input: { format: { type: "audio/pcm", rate: INPUT_RATE }, transcription: transcriptionView, turn_detection: turn, noise_reduction: null } },
    include,
  };
}
