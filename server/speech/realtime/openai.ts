/**
 * OpenAI's realtime transcription protocol on `/v1/realtime` (docs/realtime.md): JSON events in
 * (session.update or transcription_session.update, input_audio_buffer.append / commit / clear), OpenAI's
 * events out. The session core (session.ts) does the rest, as for /v1/websocket; this module only
 * reads the client's events and renders the core's, through the core's types (protocol.ts).
 */
import crypto from "node:crypto";
import type { IncomingMessage } from "node:http";
import { z } from "zod";
import { AppError, openaiErrorBody } from "../../errors";
import { SAMPLE_RATE } from "../audio";
import { resolveRequestedModel } from "../models";
import { parseSpeechOptions, realtimeTranscriptionOptions } from "../options";
import type { TokenLogprob } from "../engine-protocol";
import { Resampler24kTo16k } from "../resample";
import type { SpeechService } from "../service";
import type { ProtocolConnection, RealtimeProtocol, SessionControls, SessionSettings, TurnDetection } from "./protocol";
import { wordsOfText } from "./stabilise";
import type { Utterance } from "./utterance";

export const OPENAI_REALTIME_PATH = "/v1/realtime";

/** OpenAI's PCM16 rate; Markbook resamples it to the engine's 16 kHz. */
const INPUT_RATE = 24_000;
/** Base64 characters one append may carry (about 16 s of 24 kHz audio); a bigger one gets an `error`. */
const MAX_APPEND_CHARACTERS = 1024 * 1024;
/** A frame bigger than this (an append far over the limit) closes the socket with 1009 before it is buffered. */
const MAX_FRAME_BYTES = 2 * 1024 * 1024;
/** OpenAI's server_vad defaults. */
const SERVER_VAD: TurnDetection = { threshold: 0.5, paddingMs: 300, silenceMs: 500 };
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

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
const includeSetting = (asked: string[] | null | undefined): Partial<SessionSettings> => (asked === undefined ? {} : { logprobs: asked?.includes(LOGPROBS) ?? false });
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
const clientEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("session.update"), event_id: z.string().optional(), session: gaSession }),
  z.object({ type: z.literal("transcription_session.update"), event_id: z.string().optional(), session: betaSession }),
  z.object({ type: z.literal("input_audio_buffer.append"), event_id: z.string().optional(), audio: z.string().max(MAX_APPEND_CHARACTERS, `must carry at most ${MAX_APPEND_CHARACTERS} base64 characters: send smaller appends`) }),
  z.object({ type: z.literal("input_audio_buffer.commit"), event_id: z.string().optional() }),
  z.object({ type: z.literal("input_audio_buffer.clear"), event_id: z.string().optional() }),
]);
const KNOWN_EVENTS = clientEvent.options.map((option) => option.shape.type.value);

type Dialect = "ga" | "beta";
type Config = { format?: { type?: string; rate?: number } | string; transcription?: z.infer<typeof transcription>; turnDetection?: z.infer<typeof turnDetection> };

/** The settings a config asks for; a bad value throws, naming it as the client wrote it. */
function settingsOf(service: SpeechService, config: Config, path: { format: string; transcription: string; turnDetection: string }): Partial<SessionSettings> {
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
function eventError(message: unknown, issue: z.core.$ZodIssue | undefined): AppError {
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
function sessionView(dialect: Dialect, id: string, settings: SessionSettings) {
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

/**
 * A transcription event's `logprobs`, when the session asked for them: the final pass's text tokens
 * (`completed`); null on a delta, made of the partials' stable words, which no one pass decoded alone.
 */
function logprobsField(session: SessionControls, logprobs: TokenLogprob[] | null) {
  return session.settings.logprobs ? { logprobs } : {};
}

const randomId = (prefix: string) => `${prefix}_${crypto.randomBytes(12).toString("base64url")}`;
const milliseconds = (samples: number) => Math.round((samples / SAMPLE_RATE) * 1000);

export const openaiRealtimeProtocol: RealtimeProtocol = {
  path: OPENAI_REALTIME_PATH,
  maxPayload: MAX_FRAME_BYTES,
  handshake(service, url) {
    const intent = url.searchParams.get("intent");
    if (intent !== null && intent !== "transcription") throw new AppError("invalid", 'intent: must be "transcription": /v1/realtime serves transcription sessions only', "intent");
    // OpenAIRealtimeWS always names a model in the URL; Markbook reads it as the transcription model.
    const { model } = parseSpeechOptions(realtimeTranscriptionOptions, { model: url.searchParams.get("model") ?? undefined });
    return {
      model: resolveRequestedModel(service.config, model),
      language: undefined,
      task: "transcribe",
      temperature: 0,
      prompt: undefined,
      turnDetection: SERVER_VAD,
      partials: true, // their stable words are the live deltas
      words: false,
      logprobs: false,
    };
  },
  selectProtocol: (offered) => (offered.has("realtime") ? "realtime" : false),
  connect(_settings, _url, request: IncomingMessage) {
    const offered = String(request.headers["sec-websocket-protocol"] ?? "");
    const dialect: Dialect = /realtime=v1/.test(String(request.headers["openai-beta"] ?? "")) || offered.includes("openai-beta.realtime-v1") ? "beta" : "ga";
    return new OpenAIRealtimeConnection(dialect);
  },
};

/** What has been said of one item (an utterance) so far. */
interface ItemState {
  /** The concatenation of the deltas sent: what `completed` must begin with. */
  delivered: string;
  /** How many of the partials' stable words the deltas hold. */
  deliveredWords: number;
  /** The item before it (set at its commit). */
  previousItemId: string | null;
}

/** A word as compared between passes: case and punctuation aside ("Clear." is "clear"). */
const comparable = (word: string) => word.toLowerCase().replace(/[^\p{L}\p{N}]/gu, "");

/**
 * The transcript `completed` carries when `delivered` was already sent as deltas, and the last delta
 * (`rest`: what follows `delivered`, "" when nothing does). Deltas cannot be taken back, so the
 * transcript always begins with them: when the final pass's text begins with what was sent, it is that
 * text as it is (the rest may go on inside a word: "mark" + "s, well"); when it rewrote a sent word, the
 * sent words stand for the final's words they align with (the prefix of the final at the least word
 * edit distance, case and punctuation aside; the longer prefix on a tie), and the final's words after
 * that prefix follow.
 */
export function completeTranscript(delivered: string, finalText: string): { transcript: string; rest: string } {
  const final = finalText.trim();
  if (!delivered) return { transcript: final, rest: final };
  if (final.startsWith(delivered)) {
    return { transcript: final, rest: final.slice(delivered.length) };
  }
  const sent = wordsOfText(delivered).map(comparable);
  const finalWords = wordsOfText(final);
  const said = finalWords.map(comparable);
  // distance[j]: word edit distance between the sent words and the final's first j words (one row at a time).
  let distance = Array.from({ length: said.length + 1 }, (_, j) => j);
  for (let i = 1; i <= sent.length; i++) {
    const next = [i];
    for (let j = 1; j <= said.length; j++) next[j] = Math.min(distance[j]! + 1, next[j - 1]! + 1, distance[j - 1]! + (sent[i - 1] === said[j - 1] ? 0 : 1));
    distance = next;
  }
  let aligned = 0;
  for (let j = 1; j <= said.length; j++) if (distance[j]! <= distance[aligned]!) aligned = j;
  const tail = finalWords.slice(aligned).join(" ");
  const rest = tail ? ` ${tail}` : "";
  return { transcript: delivered + rest, rest };
}

class OpenAIRealtimeConnection implements ProtocolConnection {
  private readonly sessionId = randomId("sess");
  private readonly itemPrefix = randomId("item");
  private resampler = new Resampler24kTo16k();
  /** The odd byte of an append that split a sample. */
  private remainder = Buffer.alloc(0);
  private previousItemId: string | null = null;
  private readonly items = new WeakMap<Utterance, ItemState>();

  /** `dialect`: the handshake's; a client that sends transcription_session.update speaks beta from then on. */
  constructor(private dialect: Dialect) {}

  private itemId(utterance: Utterance) {
    return `${this.itemPrefix}${utterance.id}`;
  }

  private item(utterance: Utterance): ItemState {
    let item = this.items.get(utterance);
    if (!item) this.items.set(utterance, (item = { delivered: "", deliveredWords: 0, previousItemId: null }));
    return item;
  }

  /** The user message item of an utterance, as conversation.item.added / .created / .done carry it. */
  private itemView(utterance: Utterance, transcript: string | null) {
    return { id: this.itemId(utterance), object: "realtime.item", type: "message", role: "user", status: "completed", content: [{ type: "input_audio", transcript }] };
  }

  private delta(utterance: Utterance, item: ItemState, delta: string, session: SessionControls) {
    item.delivered += delta;
    return this.stamp({ type: "conversation.item.input_audio_transcription.delta", item_id: this.itemId(utterance), content_index: 0, delta, ...logprobsField(session, null) });
  }

  onMessage(data: Buffer, isBinary: boolean, session: SessionControls) {
    if (isBinary) {
      session.sendError(new AppError("invalid", "Audio goes in input_audio_buffer.append events (base64 PCM16), not binary frames.", "type"));
      return;
    }
    let message: unknown;
    try {
      message = JSON.parse(data.toString("utf8"));
    } catch {
      session.sendError(new AppError("invalid", "Events must be JSON.", "type"));
      return;
    }
    const parsed = clientEvent.safeParse(message);
    if (!parsed.success) {
      const eventId = typeof message === "object" && message !== null ? (message as { event_id?: unknown }).event_id : undefined;
      session.sendError(eventError(message, parsed.error.issues[0]), typeof eventId === "string" ? eventId : undefined);
      return;
    }
    const event = parsed.data;
    try {
      switch (event.type) {
        case "input_audio_buffer.append":
          this.append(event.audio, session);
          return;
        case "input_audio_buffer.commit":
          session.commit(event.event_id);
          return;
        case "input_audio_buffer.clear":
          this.remainder = Buffer.alloc(0);
          this.resampler = new Resampler24kTo16k();
          session.clear();
          return;
        case "session.update": {
          const input = event.session.audio?.input ?? {};
          const path = "session.audio.input";
          session.configure({
            ...settingsOf(
              session.service,
              { format: input.format, transcription: input.transcription, turnDetection: input.turn_detection },
              { format: `${path}.format`, transcription: `${path}.transcription`, turnDetection: `${path}.turn_detection` },
            ),
            ...includeSetting(event.session.include),
          });
          session.reply(this.stamp({ type: "session.updated", session: sessionView("ga", this.sessionId, session.settings) }));
          return;
        }
        case "transcription_session.update": {
          const input = event.session;
          session.configure({
            ...settingsOf(
              session.service,
              { format: input.input_audio_format, transcription: input.input_audio_transcription, turnDetection: input.turn_detection },
              { format: "session.input_audio_format", transcription: "session.input_audio_transcription", turnDetection: "session.turn_detection" },
            ),
            ...includeSetting(input.include),
          });
          this.dialect = "beta";
          session.reply(this.stamp({ type: "transcription_session.updated", session: sessionView("beta", this.sessionId, session.settings) }));
          return;
        }
      }
    } catch (error) {
      if (!(error instanceof AppError)) throw error; // ours: the core ends the session with 1011
      session.sendError(error, event.event_id);
    }
  }

  private append(audio: string, session: SessionControls) {
    if (!BASE64.test(audio)) throw new AppError("invalid", "audio: must be base64 (PCM16, 24 kHz, mono)", "audio");
    const decoded = Buffer.from(audio, "base64");
    const bytes = this.remainder.length ? Buffer.concat([this.remainder, decoded]) : decoded;
    const count = Math.floor(bytes.length / 2);
    this.remainder = Buffer.from(bytes.subarray(count * 2));
    const samples = new Float32Array(count);
    for (let i = 0; i < count; i++) samples[i] = bytes.readInt16LE(i * 2) / 32768;
    session.acceptAudio(this.resampler.push(samples));
  }

  /** conversation.item.done (GA only: the beta protocol has no such event), once the item's transcription has ended. */
  private itemDone(utterance: Utterance, item: ItemState, transcript: string | null) {
    if (this.dialect === "beta") return [];
    return [this.stamp({ type: "conversation.item.done", previous_item_id: item.previousItemId, item: this.itemView(utterance, transcript) })];
  }

  private stamp(message: { type: string } & Record<string, unknown>) {
    return { event_id: randomId("event"), ...message };
  }

  render(event: Parameters<ProtocolConnection["render"]>[0], session: SessionControls): object[] {
    switch (event.type) {
      case "opened":
        return [this.stamp({ type: this.dialect === "beta" ? "transcription_session.created" : "session.created", session: sessionView(this.dialect, this.sessionId, session.settings) })];
      case "speech_started":
        return [this.stamp({ type: "input_audio_buffer.speech_started", item_id: this.itemId(event.utterance), audio_start_ms: milliseconds(event.utterance.startSample) })];
      case "speech_stopped":
        return [this.stamp({ type: "input_audio_buffer.speech_stopped", item_id: this.itemId(event.utterance), audio_end_ms: milliseconds(event.utterance.startSample + event.utterance.length) })];
      case "committed": {
        // The user message item is added to the conversation (GA: conversation.item.added; beta: .created).
        const itemId = this.itemId(event.utterance);
        const item = this.item(event.utterance);
        item.previousItemId = this.previousItemId;
        this.previousItemId = itemId;
        return [
          this.stamp({ type: "input_audio_buffer.committed", item_id: itemId, previous_item_id: item.previousItemId }),
          this.stamp({ type: this.dialect === "beta" ? "conversation.item.created" : "conversation.item.added", previous_item_id: item.previousItemId, item: this.itemView(event.utterance, null) }),
        ];
      }
      case "cleared":
        return [this.stamp({ type: "input_audio_buffer.cleared" })];
      case "partial": {
        // Live deltas: the partials' stable words (two consecutive passes agreed on them; they never
        // change within the utterance), as they grow: the dictation socket's `stable`, sent once.
        const item = this.item(event.utterance);
        if (event.stable.length <= item.deliveredWords) return [];
        const words = event.stable.slice(item.deliveredWords).join(" ");
        item.deliveredWords = event.stable.length;
        return [this.delta(event.utterance, item, item.delivered ? ` ${words}` : words, session)];
      }
      case "final": {
        // The rest of the transcript as the last delta, then the completed transcript (the deltas' concatenation).
        const item = this.item(event.utterance);
        const { transcript, rest } = completeTranscript(item.delivered, event.result.text);
        const itemId = this.itemId(event.utterance);
        return [
          ...(rest ? [this.delta(event.utterance, item, rest, session)] : []),
          this.stamp({
            type: "conversation.item.input_audio_transcription.completed",
            item_id: itemId,
            content_index: 0,
            transcript,
            usage: { type: "duration", seconds: Math.round((event.utterance.length / SAMPLE_RATE) * 100) / 100 },
            ...logprobsField(session, event.result.logprobs ?? null),
          }),
          ...this.itemDone(event.utterance, item, transcript),
        ];
      }
      case "error": {
        const { error } = openaiErrorBody(event.error).body;
        if (event.utterance) {
          return [
            this.stamp({ type: "conversation.item.input_audio_transcription.failed", item_id: this.itemId(event.utterance), content_index: 0, error }),
            ...this.itemDone(event.utterance, this.item(event.utterance), null),
          ];
        }
        return [this.stamp({ type: "error", error: { ...error, event_id: event.eventId ?? null } })];
      }
      default:
        return []; // ready, language, closed: the dictation socket's
    }
  }
}
