/**
 * Markbook's dictation socket, `/v1/websocket` (docs/realtime.md): binary PCM frames and `{"type":"end"}`
 * in; ready, language, partial, final, error and closed out. The session core does the rest.
 */
import { z } from "zod";
import { AppError, openaiErrorBody } from "../../errors";
import { SAMPLE_RATE } from "../audio";
import type { TranscribeResult } from "../engine-protocol";
import type { Word } from "../formats";
import { languageName } from "../languages";
import { resolveRequestedModel } from "../models";
import { parseSpeechOptions, realtimeOptions } from "../options";
import type { SpeechService } from "../service";
import { SOCKET_VAD } from "../vad/endpointer";
import type { RealtimeProtocol, SessionControls, TurnDetection } from "./protocol";
import type { Utterance } from "./utterance";

export const REALTIME_PATH = "/v1/websocket";

const MAX_FRAME_BYTES = 1024 * 1024;

/** The dictation socket's turn detection: the VAD with OpenAI's server-VAD defaults (vad/endpointer.ts). */
const DICTATION_TURN_DETECTION: TurnDetection = { silenceMs: SOCKET_VAD.silenceDurationMs, paddingMs: SOCKET_VAD.prefixPaddingMs, threshold: SOCKET_VAD.threshold };

/** The query parameters, through the same definitions as the HTTP endpoints' fields (options.ts). */
function handshakeOptions(service: SpeechService, url: URL) {
  const query = (name: string) => url.searchParams.get(name) ?? undefined;
  const { model, language, prompt, task, encoding, temperature } = parseSpeechOptions(realtimeOptions, {
    model: query("model"),
    language: query("language"),
    prompt: query("prompt"),
    task: query("task"),
    encoding: query("encoding"),
    sample_rate: query("sample_rate"),
    temperature: query("temperature"),
  });
  return { model: resolveRequestedModel(service.config, model), language, prompt, task, encoding, temperature };
}

/** Control messages the client may send (text frames); anything else gets an `error` message. */
const controlMessage = z.object({ type: z.literal("end") });

/** Markbook's dictation socket, `/v1/websocket`: binary PCM frames in; ready, partial, final, closed out. */
export const dictationProtocol: RealtimeProtocol = {
  path: REALTIME_PATH,
  maxPayload: MAX_FRAME_BYTES,
  handshake(service, url) {
    const { encoding: _encoding, ...options } = handshakeOptions(service, url);
    return { ...options, turnDetection: DICTATION_TURN_DETECTION, partials: true, words: true, logprobs: false };
  },
  connect(_settings, url) {
    // Checked at the handshake already; read through the same definition (an empty value is the default).
    const { encoding } = parseSpeechOptions({ encoding: realtimeOptions.encoding }, { encoding: url.searchParams.get("encoding") ?? undefined });
    let remainder = Buffer.alloc(0);
    return {
      onMessage(data, isBinary, session) {
        if (isBinary) {
          const decoded = decodePcm(remainder.length ? Buffer.concat([remainder, data]) : data, encoding === "pcm_f32le" ? 4 : 2);
          remainder = decoded.remainder;
          session.acceptAudio(decoded.samples);
        } else onDictationControl(data.toString("utf8"), session); // `ws` already closed the socket (1007) on invalid UTF-8
      },
      render(event, session) {
        const { settings } = session;
        switch (event.type) {
          case "ready":
            return [{ type: "ready", session_id: session.id, model: settings.model, language: settings.language ?? null, task: settings.task, encoding, sample_rate: SAMPLE_RATE }];
          case "language":
            return [{ type: "language", language: event.code, name: languageName(event.code) }];
          case "partial": {
            const { utterance, stable, unstable } = event;
            return [{ type: "partial", segment_id: utterance.id, start: roundTime(utterance.startSample / SAMPLE_RATE), text: [...stable, ...unstable].join(" "), stable: stable.join(" "), unstable: unstable.join(" ") }];
          }
          case "final":
            return [{ type: "final", segment: finalSegment(event.utterance, event.result) }];
          case "error":
            return [{ type: "error", ...openaiErrorBody(event.error).body }];
          case "closed":
            return [{ type: "closed", reason: event.reason, session_id: session.id, audio_seconds: event.audioSeconds, segments: event.segments }];
          default:
            return []; // the VAD's own events are OpenAI's
        }
      },
    };
  },
};

function onDictationControl(text: string, session: SessionControls) {
  let message: unknown;
  try {
    message = JSON.parse(text);
  } catch {
    session.sendError(new AppError("invalid", 'Text messages must be JSON, e.g. {"type":"end"}.', "message"));
    return;
  }
  if (controlMessage.safeParse(message).success) {
    session.end();
    return;
  }
  const type = typeof message === "object" && message !== null && !Array.isArray(message) && Object.hasOwn(message, "type") ? (message as { type: unknown }).type : undefined;
  session.sendError(
    type === undefined
      ? new AppError("invalid", 'Text messages are JSON objects with a "type", e.g. {"type":"end"}; audio goes in binary frames.', "message")
      : new AppError("invalid", `Unknown message type ${JSON.stringify(type).slice(0, 100)}; the client sends audio frames and {"type":"end"}.`, "type"),
  );
}

/**
 * Little-endian PCM (2 bytes: s16, 4 bytes: f32) as samples in −1…1, and the bytes of a split sample.
 * A float frame may hold anything (NaN, ±Infinity, 1e38): the engine gets audio in −1…1.
 */
function decodePcm(bytes: Buffer, bytesPerSample: 2 | 4) {
  const count = Math.floor(bytes.length / bytesPerSample);
  const samples = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    const sample = bytesPerSample === 2 ? bytes.readInt16LE(i * 2) / 32768 : bytes.readFloatLE(i * 4);
    samples[i] = Number.isFinite(sample) ? Math.max(-1, Math.min(1, sample)) : 0;
  }
  return { samples, remainder: Buffer.from(bytes.subarray(count * bytesPerSample)) };
}

/** A final pass as the dictation socket's segment: session times, words shifted, statistics rounded. */
function finalSegment(utterance: Utterance, result: TranscribeResult) {
  const offset = utterance.startSample / SAMPLE_RATE;
  const shift = (word: Word): Word => ({
    ...word,
    start: roundTime(offset + word.start),
    end: roundTime(offset + word.end),
    probability: word.probability === undefined ? undefined : Math.round(word.probability * 1e4) / 1e4,
  });
  return {
    id: utterance.id,
    start: roundTime(offset),
    end: roundTime(offset + utterance.length / SAMPLE_RATE),
    text: result.text,
    words: result.words.map(shift),
    avg_logprob: result.segments[0]?.avg_logprob ?? null,
    no_speech_prob: result.segments[0]?.no_speech_prob ?? null,
  };
}

const roundTime = (seconds: number) => Math.round(seconds * 100) / 100;
