/**
 * OpenAI's realtime transcription protocol on `/v1/realtime` (docs/realtime.md): JSON events in
 * (session.update or transcription_session.update, input_audio_buffer.append / commit / clear), OpenAI's
 * events out. The session core (session.ts) does the rest, as for /v1/websocket; this module only
 * reads the client's events and renders the core's, through the core's types (protocol.ts). OpenAI's
 * vocabulary is in openai-events.ts; the transcript after the deltas, in openai-transcript.ts.
 */
import crypto from "node:crypto";
import type { IncomingMessage } from "node:http";
import { AppError, openaiErrorBody } from "../../errors";
import { SAMPLE_RATE } from "../audio";
import { resolveRequestedModel } from "../models";
import { parseSpeechOptions, realtimeTranscriptionOptions } from "../options";
import type { TokenLogprob } from "../engine-protocol";
import { Resampler24kTo16k } from "../resample";
import type { ProtocolConnection, RealtimeProtocol, SessionControls } from "./protocol";
import { type Dialect, SERVER_VAD, clientEvent, eventError, includeSetting, sessionView, settingsOf } from "./openai-events";
import { completeTranscript } from "./openai-transcript";
import type { Utterance } from "./utterance";

export const OPENAI_REALTIME_PATH = "/v1/realtime";

/** A frame bigger than this (an append far over the limit) closes the socket with 1009 before it is buffered. */
const MAX_FRAME_BYTES = 2 * 1024 * 1024;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

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
