/**
 * The OpenAI-compatible speech REST API (`/v1/…`), as a plain Node request handler: server.ts calls it
 * before Next for every path under /v1/, and tests mount it on their own http server.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { AppError, openaiErrorBody } from "../errors";
import { logger } from "../logger";
import { SAMPLE_RATE, decodeAudioFile, invalidFileFormat, isSilent, readFileHead, sniffAudioFormat } from "./audio";
import { readAudioUpload } from "./audio-upload";
import { CancelledJobError } from "./engine-pool";
import { type Transcript, renderTranscript } from "./formats";
import { SPEECH_SOCKET_PATHS, matchSpeechOperation } from "./http-operations";
import type { SpeechModelId } from "./config";
import { languageName } from "./languages";
import type { ModelHealth } from "./model-health";
import { listModels, resolveRequestedModel, retrieveModel } from "./models";
import { asSentence, assessSpeech } from "./readiness";
import { type RateLimitHeaders, rateLimitHeadersOf, retryAfterOf } from "./rate-limits";
import { SPEECH_SERVICE_NAME, SPEECH_SERVICE_VERSION, type SpeechService, getSpeechService } from "./service";
import { TranscriptEventStream, endStreamWithError, isEventStream } from "./transcript-events";
import { AUDIO_FILE_FIELD, type SpeechTask, readTranscriptionForm } from "./transcription-form";

export type SpeechRequestHandler = (request: IncomingMessage, response: ServerResponse) => Promise<void>;

export const isSpeechPath = (url: string | undefined) => (url ?? "").startsWith("/v1/") || url === "/v1";

/** The handler server.ts mounts: the process's speech service, from the environment. */
export const handleSpeechRequest: SpeechRequestHandler = (request, response) => createSpeechHandler(getSpeechService())(request, response);

export function createSpeechHandler(service: SpeechService): SpeechRequestHandler {
  return async (request, response) => {
    const extraHeaders: Record<string, string> = {};
    try {
      const url = new URL(request.url ?? "/", "http://localhost");
      const path = url.pathname.replace(/\/+$/, "");
      const method = request.method ?? "GET";

      const matched = matchSpeechOperation(method, path);
      if (matched?.operation === "health") return sendJson(response, 200, await health(service, await holdsValidKey(service, request)));
      if (matched?.operation === "readiness") {
        const ready = await readiness(service, await holdsValidKey(service, request));
        return sendJson(response, ready.status, ready.body, { "cache-control": "no-store" });
      }
      if (path === SPEECH_SOCKET_PATHS.websocket || path === SPEECH_SOCKET_PATHS.realtime) {
        throw new AppError("invalid", "This endpoint speaks WebSocket: send an Upgrade: websocket request.");
      }

      // Before the 404 too: who has no key learns nothing about which paths exist.
      const keyId = await authenticate(service, request);
      switch (matched?.operation) {
        case "listModels":
          return sendJson(response, 200, listModels(service.config, await assessSpeech(service)));
        case "retrieveModel":
          return sendJson(response, 200, retrieveModel(service.config, await assessSpeech(service), safeDecode(matched.params.model!)));
        case "createTranscription":
        case "createTranslation": {
          Object.assign(extraHeaders, await service.rateLimiter.takeRequest(keyId));
          const task = matched.operation === "createTranslation" ? "translate" : "transcribe";
          // The headers after the audio is counted too (a failure after the request's take keeps these).
          const rendered = await transcribeUpload(service, request, response, task, keyId, extraHeaders);
          if (rendered === null) return; // the client went away, or the answer was streamed
          response.writeHead(200, { "content-type": rendered.contentType, ...extraHeaders });
          response.end(rendered.body);
          return;
        }
      }
      throw new AppError("not_found", `Invalid URL (${method} ${url.pathname})`, undefined, "unknown_url");
    } catch (error) {
      if (error instanceof CancelledJobError) return; // nobody is listening any more
      Object.assign(extraHeaders, rateLimitHeadersOf(error));
      const retryAfter = retryAfterOf(error);
      if (retryAfter) extraHeaders["retry-after"] = String(retryAfter);
      sendError(request, response, error, extraHeaders);
    }
  };
}

const safeDecode = (segment: string) => {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a malformed escape is just an unknown model (404), not a 500
  }
};

const bearerKey = (request: IncomingMessage) => /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "");

/** Whether the request carries a valid API key (the health check's; it refuses nobody). */
async function holdsValidKey(service: SpeechService, request: IncomingMessage): Promise<boolean> {
  const match = bearerKey(request);
  return match ? (await service.authenticate(match[1]!)) !== null : false;
}

async function authenticate(service: SpeechService, request: IncomingMessage): Promise<string> {
  const match = bearerKey(request);
  const keyId = match ? await service.authenticate(match[1]!) : null;
  if (!keyId) {
    throw new AppError(
      "unauthenticated",
      match ? "Incorrect API key provided." : "You didn't provide an API key: send it in the Authorization header as 'Bearer <API key>'.",
      undefined,
      "invalid_api_key",
    );
  }
  return keyId;
}

/**
 * `unhealthy` when ffmpeg cannot run, the engine is down, or the default model (what a request naming
 * none, or `whisper-1`, gets) cannot be loaded (readiness.ts). With a valid key, the details: `reason`,
 * `models` (which of the five can be loaded, from where), `realtime`, the version and uptime (extra
 * fields: the contract's HealthResponse closes none, docs/spec/speech-api.md "HealthResponse (object)"). Without one
 * (a load balancer, anyone), the status
 * only: the reasons name folders (MODELS_DIR) and configuration that are not the public's to read.
 * Always 200, as the contract declares (docs/spec/speech-api.md "GET /v1/health"): a load balancer wants
 * GET /v1/health/ready.
 */
async function health(service: SpeechService, withDetails: boolean): Promise<SpeechHealth> {
  const state = await assessSpeech(service);
  const { status, reasons } = state;
  if (!withDetails) return { status, service: SPEECH_SERVICE_NAME };
  return {
    status,
    service: SPEECH_SERVICE_NAME,
    version: SPEECH_SERVICE_VERSION,
    timestamp: new Date().toISOString(),
    uptime: Math.round((Date.now() - service.startedAt) / 1000),
    ...(reasons.length > 0 ? { reason: reasons.join("; ") } : {}),
    default_model: state.defaultModel,
    models: state.models,
    realtime: realtimeHealth(service),
  };
}

/**
 * GET /v1/health/ready, for a load balancer (not in the contract, which keeps /v1/health at 200:
 * docs/spec/speech-api.md "GET /v1/health"): 200
 * when some request can be served (the engine runs and at least one model can be loaded; ffmpeg's
 * state is /v1/health's, as the sockets' raw PCM needs none),
 * else 503, both with `{status, service, models}` (the ids that can be loaded) and, on 503, `reason`. Without a key the
 * reason names no folder or setting; with one it is the operator's (as /v1/health's).
 */
async function readiness(service: SpeechService, withDetails: boolean): Promise<{ status: number; body: SpeechReadinessBody }> {
  const state = await assessSpeech(service);
  const reason = withDetails ? [...state.publicReasons, ...state.reasons] : state.publicReasons;
  const body: SpeechReadinessBody = {
    status: state.ready ? "ready" : "unavailable",
    service: SPEECH_SERVICE_NAME,
    models: state.loadable,
    ...(state.ready ? {} : { reason: asSentence([...new Set(reason)]) }),
  };
  return { status: state.ready ? 200 : 503, body };
}

/** What GET /v1/health/ready answers (200 ready, 503 unavailable). */
export interface SpeechReadinessBody {
  status: "ready" | "unavailable";
  service: string;
  models: SpeechModelId[];
  reason?: string;
}

/** What GET /v1/health answers (the OpenAPI document's HealthResponse is checked against it): status and service for all, the rest with a key. */
export interface SpeechHealth {
  status: "healthy" | "unhealthy";
  service: string;
  version?: string;
  timestamp?: string;
  uptime?: number;
  reason?: string;
  default_model?: SpeechModelId;
  models?: Record<SpeechModelId, ModelHealth>;
  realtime?: ReturnType<typeof realtimeHealth>;
}

/**
 * What /v1/websocket can do now (an extra field: the contract's HealthResponse names five and closes
 * none, docs/spec/speech-api.md "HealthResponse (object)"). `unhealthy` when a new session would be refused: every
 * session is in use, or the engine is down.
 */
function realtimeHealth(service: SpeechService) {
  const sessions = service.realtimeSessions.size;
  const max = service.config.wsMaxSessions;
  const engine = service.pool.health;
  const reason = !engine.ok ? engine.reason : sessions >= max ? `all ${max} real-time sessions are in use` : null;
  return { status: reason ? "unhealthy" : "healthy", sessions, max_sessions: max, ...(reason ? { reason } : {}) };
}

async function transcribeUpload(
  service: SpeechService,
  request: IncomingMessage,
  response: ServerResponse,
  task: SpeechTask,
  keyId: string,
  rateLimitHeaders: RateLimitHeaders,
) {
  const { config } = service;
  // The client going away cancels everything that follows, including a queued or running inference.
  const abort = new AbortController();
  response.on("close", () => {
    if (!response.writableFinished) abort.abort();
  });

  const declaredLength = Number(request.headers["content-length"] ?? NaN);
  const upload = await readAudioUpload(
    { contentType: request.headers["content-type"], contentLength: Number.isFinite(declaredLength) ? declaredLength : null, body: request },
    config.maxAudioBytes,
  );
  try {
    const fields = readTranscriptionForm(upload.fields, task);
    const model = resolveRequestedModel(config, fields.model);
    const file = upload.file;
    if (!file) throw new AppError("invalid", `The audio file is missing: send it in the '${AUDIO_FILE_FIELD}' field.`, AUDIO_FILE_FIELD);
    if (file.size === 0) throw invalidFileFormat("The file is empty.");
    if (!sniffAudioFormat(await readFileHead(file.path))) throw invalidFileFormat("The file is not audio in a supported container.");

    const wantWords = fields.timestamp_granularities.includes("word");
    if (wantWords && !(await service.pool.supportsWordTimestamps(model, config.modelSources[model], abort.signal))) {
      throw new AppError("invalid", `The model '${model}' cannot give word timestamps.`, "timestamp_granularities");
    }

    const samples = await decodeAudioFile(config.ffmpegPath, file.path, { maxSeconds: config.maxAudioSeconds, signal: abort.signal });
    await upload.cleanup();
    const duration = samples.length / SAMPLE_RATE;
    Object.assign(rateLimitHeaders, await service.rateLimiter.takeAudio(keyId, duration));

    // stream=true: each decoded window's segments go out as deltas; the first one sends the headers.
    const events = fields.stream ? new TranscriptEventStream(response, rateLimitHeaders) : null;
    let transcript: Transcript;
    const languageOut = (code: string) => (task === "translate" ? "english" : languageName(code));
    if (samples.length === 0 || isSilent(samples)) {
      transcript = { task, language: languageOut(fields.language ?? "en"), duration, text: "", segments: [], words: [] };
    } else {
      const result = await service.pool.transcribe(
        {
          model,
          source: config.modelSources[model],
          samples,
          task,
          language: fields.language,
          prompt: fields.prompt,
          temperature: fields.temperature,
          wordTimestamps: wantWords,
          vad: fields.chunking_strategy,
        },
        abort.signal,
        events ? (segments) => events.segments(segments) : undefined,
      );
      transcript = { task, language: languageOut(result.languageCode), duration, text: result.text, segments: result.segments, words: result.words };
    }
    if (abort.signal.aborted) return null;
    if (events) {
      events.done(transcript.text);
      return null;
    }
    return renderTranscript(transcript, fields.response_format, fields.timestamp_granularities);
  } catch (error) {
    if (abort.signal.aborted) throw new CancelledJobError();
    throw error;
  } finally {
    await upload.cleanup();
  }
}

function sendJson(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) {
  response.writeHead(status, { "content-type": "application/json", ...headers });
  response.end(JSON.stringify(body));
}

/**
 * Answers with the contract's error body (docs/spec/speech-api.md "Error (object)"). A body the client is still
 * sending is read and discarded
 * after the answer by the http server (server/http/unread-body.ts), so the client reads this answer.
 */
function sendError(request: IncomingMessage, response: ServerResponse, error: unknown, headers: Record<string, string>) {
  const { status, body } = openaiErrorBody(error);
  if (status >= 500) logger.warn(`speech ${request.method} ${request.url} answered ${status}: ${body.error.message}`);
  if (response.headersSent) {
    if (isEventStream(response)) endStreamWithError(response, error);
    else response.destroy();
    return;
  }
  sendJson(response, status, body, headers);
}
