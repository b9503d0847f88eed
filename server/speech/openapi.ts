/**
 * The /v1 part of the OpenAPI document (GET /api/openapi.json): the OpenAI-compatible speech service.
 * Built from what the handler itself routes, parses and answers with (the operation table, the form's
 * fields and their zod schemas, the response formats, the types of the replies, server/errors.ts's
 * mapping), so that the document cannot describe a field, format or status the handler does not have.
 */
import type { z } from "zod";
import { type AppErrorCode, errorCodes, type openaiErrorBody } from "../errors";
import { jsonSchemaOf } from "../http/openapi-schema";
import { ACCEPTED_FORMATS } from "./audio";
import { OPENAI_DEFAULT_MODEL_ALIAS, SPEECH_MODEL_IDS } from "./config";
import { type JsonTranscription, RESPONSE_CONTENT_TYPES, type ResponseFormat, type Segment, type Word, type verboseJson } from "./formats";
import type { SpeechHealth, SpeechReadinessBody } from "./http";
import { SPEECH_HTTP_OPERATIONS, SPEECH_SOCKET_PATHS, type SpeechHttpOperation } from "./http-operations";
import { WHISPER_LANGUAGES } from "./languages";
import type { ModelHealth } from "./model-health";
// Types only: models.ts finds model folders on disk, which the document must not pull into its bundle.
import type { ModelObject, listModels } from "./models";
import { CHUNKING_AUTO, realtimeOptions, realtimeTranscriptionOptions, serverVadConfig, transcriptionOptions } from "./options";
import { EVENT_STREAM_TYPE, type TranscriptErrorEvent, type TranscriptTextDeltaEvent, type TranscriptTextDoneEvent } from "./transcript-events";
import { AUDIO_FILE_FIELD, type SpeechTask, TRANSCRIPTION_FORM_FIELDS, formOptionsOf } from "./transcription-form";

type JsonSchema = Record<string, unknown>;

const SPEECH_TAG = {
  name: "Speech (OpenAI-compatible)",
  description:
    "Speech to text under /v1, in OpenAI's shapes: point an OpenAI client's base URL at `<server>/v1`. Errors are " +
    "`{error: {message, type, code, param}}`; an unknown /v1 path is 404 `unknown_url`. The real-time WebSockets " +
    "are described as the GET of their handshake; their messages are in docs/realtime.md.",
};

const SPEECH_SECURITY_SCHEMES = {
  speechApiKey: {
    type: "http",
    scheme: "bearer",
    description:
      "A speech API key (`markbook api-key create`, or Settings → Speech API keys), or a short-lived dictation key the " +
      "signed-in UI is given, as `Authorization: Bearer <key>`. Not a user token.",
  },
  speechApiKeyQuery: {
    type: "apiKey",
    in: "query",
    name: "api_key",
    description:
      "The same key for the WebSockets only, where a browser cannot set headers: `?api_key=<key>`, or offered as the " +
      "subprotocol `openai-insecure-api-key.<key>`.",
  },
};

const bearerOnly = [{ speechApiKey: [] }];
const socketSecurity = [{ speechApiKey: [] }, { speechApiKeyQuery: [] }];
const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

// ---------------------------------------------------------------------------------------------------
// Reply schemas, each checked against the type the handler answers with.

type RequiredKeys<T> = { [K in keyof T]-?: undefined extends T[K] ? never : K }[keyof T];

/**
 * An object schema naming exactly T's fields, and as required exactly those T never leaves out: a
 * field added to the handler's reply type and not described here fails to compile.
 */
function objectSchema<T extends object>(properties: { [K in keyof T]-?: JsonSchema }, required: { [K in RequiredKeys<T>]: true }, description?: string) {
  return { type: "object", ...(description ? { description } : {}), properties, required: Object.keys(required) };
}

const seconds = (description: string) => ({ type: "number", description: `${description}, seconds` });
const string = (description: string) => ({ type: "string", description });
const modelIdSchema = { type: "string", enum: [...SPEECH_MODEL_IDS] };

type ErrorBody = ReturnType<typeof openaiErrorBody>["body"];
type VerboseTranscription = ReturnType<typeof verboseJson>;
type RealtimeHealth = NonNullable<SpeechHealth["realtime"]>;

const speechSchemas: Record<string, JsonSchema> = {
  OpenAIError: objectSchema<ErrorBody>({ error: ref("OpenAIErrorObject") }, { error: true }, "OpenAI's error body"),
  OpenAIErrorObject: objectSchema<ErrorBody["error"]>(
    {
      message: string("For people"),
      type: string("invalid_request_error, authentication_error, rate_limit_error or server_error"),
      code: string("For programs: invalid_parameters, invalid_api_key, model_not_found, file_too_large, …"),
      param: { type: ["string", "null"], description: "The field or parameter at fault" },
    },
    { message: true, type: true, code: true, param: true },
  ),
  Transcription: objectSchema<JsonTranscription>({ text: string("The transcript (translations: in English)") }, { text: true }, "response_format=json"),
  TranscriptionWord: objectSchema<Word>(
    { word: string("The word"), start: seconds("Start"), end: seconds("End"), probability: { type: "number", minimum: 0, maximum: 1 } },
    { word: true, start: true, end: true },
  ),
  TranscriptionSegment: objectSchema<Segment>(
    {
      id: { type: "integer" },
      seek: seconds("Start of the 30 s window that gave the segment"),
      start: seconds("Start"),
      end: seconds("End"),
      text: string("The segment's text"),
      tokens: { type: "array", items: { type: "integer" } },
      temperature: { type: "number", description: "The temperature the segment was decoded at" },
      avg_logprob: { type: "number" },
      compression_ratio: { type: "number" },
      no_speech_prob: { type: "number" },
      words: { type: "array", items: ref("TranscriptionWord"), description: "With timestamp_granularities word and segment" },
    },
    { id: true, seek: true, start: true, end: true, text: true, tokens: true, temperature: true, avg_logprob: true, compression_ratio: true, no_speech_prob: true },
  ),
  VerboseTranscription: objectSchema<VerboseTranscription>(
    {
      task: { type: "string", enum: ["transcribe", "translate"] satisfies SpeechTask[] },
      language: string('The language of the audio as a lowercase English name ("english"); translations: "english"'),
      duration: seconds("Length of the audio"),
      text: string("The transcript"),
      segments: { type: "array", items: ref("TranscriptionSegment"), description: "Unless timestamp_granularities leaves segment out" },
      words: { type: "array", items: ref("TranscriptionWord"), description: "With timestamp_granularities word" },
    },
    { task: true, language: true, duration: true, text: true },
    "response_format=verbose_json",
  ),
  TranscriptTextDeltaEvent: objectSchema<TranscriptTextDeltaEvent>(
    { type: { type: "string", const: "transcript.text.delta" }, delta: string("Text that follows what came before") },
    { type: true, delta: true },
  ),
  TranscriptTextDoneEvent: objectSchema<TranscriptTextDoneEvent>(
    { type: { type: "string", const: "transcript.text.done" }, text: string("The whole transcript, the deltas joined") },
    { type: true, text: true },
  ),
  TranscriptErrorEvent: objectSchema<TranscriptErrorEvent>(
    { type: { type: "string", const: "error" }, error: ref("OpenAIErrorObject") },
    { type: true, error: true },
    "A failure after the first event; the stream ends with it",
  ),
  TranscriptStreamEvent: {
    description: "One `data:` line of the stream (stream=true): deltas, then done (or error)",
    oneOf: [ref("TranscriptTextDeltaEvent"), ref("TranscriptTextDoneEvent"), ref("TranscriptErrorEvent")],
  },
  ServerVadConfig: { ...jsonSchemaOf(serverVadConfig, "output"), description: "OpenAI's VadConfig: voice-activity detection's settings" },
  Model: objectSchema<ModelObject>(
    {
      id: modelIdSchema,
      object: { type: "string", const: "model" },
      created: { type: "integer", description: "Unix time, seconds" },
      owned_by: { type: "string" },
      permission: { type: "array", items: { type: "object" } },
      root: string("The model folder under MODELS_DIR, or the hub id, it loads from"),
      parent: { type: "null" },
    },
    { id: true, object: true, created: true, owned_by: true, permission: true, root: true, parent: true },
  ),
  ListModelsResponse: objectSchema<ReturnType<typeof listModels>>(
    { object: { type: "string", const: "list" }, data: { type: "array", items: ref("Model") } },
    { object: true, data: true },
  ),
  HealthResponse: objectSchema<SpeechHealth>(
    {
      status: { type: "string", enum: ["healthy", "unhealthy"], description: "unhealthy: ffmpeg cannot run, the engine is down, or the default model cannot be loaded" },
      service: { type: "string" },
      version: { type: "string" },
      timestamp: { type: "string", format: "date-time" },
      uptime: { type: "number", description: "Seconds since the service started" },
      reason: string("Why it is unhealthy"),
      default_model: modelIdSchema,
      models: {
        type: "object",
        description: "Whether each model can be loaded now",
        propertyNames: modelIdSchema,
        additionalProperties: objectSchema<ModelHealth>(
          {
            status: { type: "string", enum: ["healthy", "unhealthy"] },
            source: string("The folder under MODELS_DIR, or the hub id"),
            from: { enum: ["disk", "download", null] },
            reason: { type: "string" },
          },
          { status: true, source: true, from: true },
        ),
      },
      realtime: objectSchema<RealtimeHealth>(
        {
          status: { type: "string", enum: ["healthy", "unhealthy"], description: "unhealthy: a new session would be refused" },
          sessions: { type: "integer" },
          max_sessions: { type: "integer" },
          reason: { type: "string" },
        },
        { status: true, sessions: true, max_sessions: true },
      ),
    },
    { status: true, service: true },
    "Without a valid key, status and service only; with one, every field (reason only when unhealthy)",
  ),
  ReadinessResponse: objectSchema<SpeechReadinessBody>(
    {
      status: { type: "string", enum: ["ready", "unavailable"], description: "unavailable: the engine is down, or no model can be loaded" },
      service: { type: "string" },
      models: { type: "array", items: modelIdSchema, description: "The models that can be loaded now (GET /v1/models lists these)" },
      reason: string("Why it cannot serve (only when unavailable): without a key in words that name no folder or setting, with one the operator's details"),
    },
    { status: true, service: true, models: true },
    "GET /v1/health/ready's answer, 200 or 503",
  ),
};

// ---------------------------------------------------------------------------------------------------
// Request fields, from the zod schemas the handler parses them with.

type ZodDef = { type: string; innerType?: z.ZodType; out?: z.ZodType };
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

/** Whether the handler's value is computed by code from what was sent (stream's "true" → true). */
function isComputed(schema: z.ZodType): boolean {
  const def = defOf(schema);
  if (def.innerType) return isComputed(def.innerType);
  return def.type === "pipe" && def.out !== undefined && defOf(def.out).type === "transform";
}

/**
 * A field is text on the wire; like OpenAI's, the document gives the value it stands for (temperature:
 * a number from 0 to 1), except where code computes the value: there, the text that is accepted.
 */
const valueSchemaOf = (schema: z.ZodType) => jsonSchemaOf(schema, isComputed(schema) ? "input" : "output");

/** What a zod schema cannot say: the ids and names checked by code after parsing. */
const optionOverrides: Record<string, JsonSchema> = {
  model: { enum: [...SPEECH_MODEL_IDS, OPENAI_DEFAULT_MODEL_ALIAS] },
  language: { enum: Object.keys(WHISPER_LANGUAGES).filter((code) => /^[a-z]{2}$/.test(code)) },
  chunking_strategy: { anyOf: [{ type: "string", const: CHUNKING_AUTO }, ref("ServerVadConfig")] },
};

const optionSchema = (name: string, schema: z.ZodType) => ({ ...valueSchemaOf(schema), ...optionOverrides[name] });

function transcriptionForm(task: SpeechTask): JsonSchema {
  const options = Object.fromEntries(formOptionsOf(task).map((option) => [TRANSCRIPTION_FORM_FIELDS[option], optionSchema(option, transcriptionOptions[option])]));
  return {
    type: "object",
    properties: {
      [AUDIO_FILE_FIELD]: {
        type: "string",
        contentMediaType: "application/octet-stream",
        description: `The audio file itself (${ACCEPTED_FORMATS.join(", ")}; the container is read from its bytes), at most MAX_AUDIO_BYTES (25 MiB by default)`,
      },
      ...options,
    },
    required: [AUDIO_FILE_FIELD],
  };
}

const queryParameters = (options: Record<string, z.ZodType>) =>
  Object.entries(options).map(([name, schema]) => {
    const { description, ...value } = optionSchema(name, schema) as JsonSchema & { description?: string };
    return { name, in: "query", required: false, ...(description ? { description } : {}), schema: value };
  });

// ---------------------------------------------------------------------------------------------------
// Errors: each operation's refusals as (AppError code, OpenAI code); status and type come from
// server/errors.ts, the mapping the handler answers with.

interface Refusal {
  code: AppErrorCode;
  /** When the handler names a more precise code than the mapping's. */
  openaiCode?: string;
  when: string;
  example: { message: string; param?: string };
}

const unauthenticated: Refusal = {
  code: "unauthenticated",
  openaiCode: "invalid_api_key",
  when: "no key, a wrong key or a revoked one",
  example: { message: "Incorrect API key provided." },
};
const internal: Refusal = {
  code: "internal",
  when: "an unexpected failure (the key store, the audio decoder or the engine failed); details go to the log",
  example: { message: "Internal server error" },
};
const modelNotInstalled: Refusal = {
  code: "invalid",
  openaiCode: "model_not_found",
  when: "the model is one of the ids but cannot be loaded: it is not installed here and downloads are off (ALLOW_REMOTE_MODELS), or its download failed",
  example: { message: "The model 'large' cannot be loaded: …, and downloads are off (ALLOW_REMOTE_MODELS=false). …", param: "model" },
};
const rateLimitsUnavailable: Refusal = {
  code: "unavailable",
  when: "the rate limits cannot be checked (the database does not answer; Retry-After: 1), or the service is shutting down",
  example: { message: "The speech rate limits cannot be checked now. Retry shortly." },
};

const audioRefusals: Refusal[] = [
  {
    code: "invalid",
    when: "a field is invalid (param names it), the body is not a well-formed multipart form, the file is missing, or the audio is longer than MAX_AUDIO_SECONDS",
    example: { message: "temperature: must be at most 1", param: "temperature" },
  },
  modelNotInstalled,
  unauthenticated,
  { code: "too_large", openaiCode: "file_too_large", when: "the file is larger than MAX_AUDIO_BYTES", example: { message: "The file is larger than the maximum of 25 MB.", param: "file" } },
  {
    code: "unprocessable",
    openaiCode: "invalid_file_format",
    when: "the file is empty, not audio in an accepted container, or cannot be decoded",
    example: { message: "Invalid file format. The file is not audio in a supported container. Supported formats: …", param: "file" },
  },
  {
    code: "rate_limited",
    openaiCode: "rate_limit_exceeded",
    when: "the key's requests or seconds of audio for this minute are used up (SPEECH_RATE_LIMIT_RPM, SPEECH_RATE_LIMIT_AUDIO_SECONDS), or the engine's queue is full",
    example: { message: "Rate limit reached: 60 requests per minute. Retry after 12 s." },
  },
  internal,
  rateLimitsUnavailable,
];

const socketRefusals: Refusal[] = [
  {
    code: "invalid",
    when: "a query parameter is invalid (param names it), or the request is not a WebSocket handshake",
    example: { message: "language: must be an ISO-639-1 code: two lowercase letters", param: "language" },
  },
  modelNotInstalled,
  unauthenticated,
  {
    code: "rate_limited",
    openaiCode: "rate_limit_exceeded",
    when: "every real-time session is in use (SPEECH_WS_MAX_SESSIONS), or the key's requests for this minute are used up",
    example: { message: "Too many real-time sessions (at most 8). Retry later." },
  },
  internal,
  rateLimitsUnavailable,
];

const retryAfterHeader = { "Retry-After": { description: "Seconds to wait before retrying", schema: { type: "integer", minimum: 1 } } };
/** The per-key limits' headers (rate-limits.ts), on the audio answers and their 429, as OpenAI's. */
const rateLimitHeaders = Object.fromEntries(
  (["requests", "audio-seconds"] as const).flatMap((unit) => [
    [`x-ratelimit-limit-${unit}`, { description: `The key's ${unit.replace("-", " ")} per minute (when limited)`, schema: { type: "integer" } }],
    [`x-ratelimit-remaining-${unit}`, { description: `What is left of them in this minute`, schema: { type: "integer" } }],
    [`x-ratelimit-reset-${unit}`, { description: `When the minute ends, e.g. "12s"`, schema: { type: "string" } }],
  ]),
);

function errorResponses(refusals: Refusal[], { rateLimited = false } = {}): Record<string, JsonSchema> {
  const byStatus = new Map<number, Refusal[]>();
  for (const refusal of refusals) byStatus.set(errorCodes[refusal.code].status, [...(byStatus.get(errorCodes[refusal.code].status) ?? []), refusal]);
  return Object.fromEntries(
    [...byStatus].map(([status, cases]) => {
      const retries = cases.some(({ code }) => code === "rate_limited" || code === "unavailable");
      const headers = { ...(retries ? retryAfterHeader : {}), ...(rateLimited && status === 429 ? rateLimitHeaders : {}) };
      const examples = Object.fromEntries(
        cases.map(({ code, openaiCode, when, example }) => {
          const body = { error: { message: example.message, type: errorCodes[code].openaiType, code: openaiCode ?? errorCodes[code].openaiCode, param: example.param ?? null } };
          return [body.error.code, { summary: when, value: body }];
        }),
      );
      const description = cases.map(({ when }) => when[0]!.toUpperCase() + when.slice(1)).join("; or ");
      return [
        String(status),
        { description, ...(Object.keys(headers).length > 0 ? { headers } : {}), content: { "application/json": { schema: ref("OpenAIError"), examples } } },
      ];
    }),
  );
}

// ---------------------------------------------------------------------------------------------------
// Operations.

const mediaTypeOf = (contentType: string) => contentType.split(";")[0]!.trim();

const formatSchemas: Record<ResponseFormat, JsonSchema> = {
  json: ref("Transcription"),
  verbose_json: ref("VerboseTranscription"),
  text: { type: "string", description: "response_format=text: the transcript and a newline" },
  srt: { type: "string", description: "response_format=srt: numbered cues, HH:MM:SS,mmm" },
  vtt: { type: "string", description: 'response_format=vtt: "WEBVTT", then cues, HH:MM:SS.mmm' },
};

/** The 200 of the audio operations: one media type per content type the formats are sent with, and the stream. */
function transcriptResponse(): JsonSchema {
  const content: Record<string, { schema: JsonSchema }> = {};
  for (const [format, contentType] of Object.entries(RESPONSE_CONTENT_TYPES) as [ResponseFormat, string][]) {
    const mediaType = mediaTypeOf(contentType);
    const schema = formatSchemas[format];
    const present = content[mediaType]?.schema;
    // anyOf, not oneOf: a verbose_json body is a json body too ({text} and more).
    content[mediaType] = { schema: present ? { anyOf: [...((present.anyOf as JsonSchema[] | undefined) ?? [present]), schema] } : schema };
  }
  content[mediaTypeOf(EVENT_STREAM_TYPE)] = { schema: ref("TranscriptStreamEvent") };
  const formats = Object.entries(RESPONSE_CONTENT_TYPES).map(([format, type]) => `${format}: ${mediaTypeOf(type)}`);
  return {
    description: `The transcript in the shape response_format asks for (${formats.join(", ")}); stream=true: server-sent events`,
    headers: rateLimitHeaders,
    content,
  };
}

function audioOperation(task: SpeechTask): JsonSchema {
  const transcribe = task === "transcribe";
  return {
    tags: [SPEECH_TAG.name],
    operationId: transcribe ? "createTranscription" : "createTranslation",
    summary: transcribe ? "Transcribe audio in its own language" : "Translate audio into English",
    description:
      (transcribe ? "" : "The same form as a transcription, without `language` (400 when it is sent). ") +
      "Unknown form fields are ignored, as OpenAI does. With stream=true the status and headers go out with the first event, " +
      "so every refusal below comes before the stream; a failure during it is its last event.",
    security: bearerOnly,
    requestBody: { required: true, content: { "multipart/form-data": { schema: transcriptionForm(task) } } },
    responses: { 200: transcriptResponse(), ...errorResponses(audioRefusals, { rateLimited: true }) },
  };
}

const json = (description: string, schema: JsonSchema) => ({ description, content: { "application/json": { schema } } });

const healthOperation = {
  tags: [SPEECH_TAG.name],
  operationId: "getHealth",
  summary: "Health of the speech service",
  description:
    "Needs no key (load balancers have none): without a valid key it answers the status only (and the service's name); with one, " +
    "the reason when unhealthy, whether each model could be loaded (it loads none), the real-time socket's sessions, version and uptime.",
  security: [],
  responses: { 200: json("The service's health; unhealthy still answers 200, with a reason", ref("HealthResponse")) },
};

const httpOperations: Record<SpeechHttpOperation, JsonSchema> = {
  health: healthOperation,
  readiness: {
    tags: [SPEECH_TAG.name],
    operationId: "getReadiness",
    summary: "Readiness of the speech service, for a load balancer",
    description:
      "Not in the speech contract (whose GET /v1/health answers 200 even when unhealthy): 200 when some request can be served " +
      "(the engine runs and at least one model can be loaded, which it checks without loading any), 503 when none can, with the reason. " +
      "Needs no key; with a valid one, the reason names the folders and settings to change.",
    security: [],
    responses: {
      200: json("Ready: some model can serve", ref("ReadinessResponse")),
      503: json("Unavailable: no model can serve, or the engine is down (not an error body: the same shape as 200, with a reason)", ref("ReadinessResponse")),
    },
  },
  listModels: {
    tags: [SPEECH_TAG.name],
    operationId: "listModels",
    summary: "List the models",
    security: bearerOnly,
    responses: {
      200: json("The models that can be loaded now: their files are in MODELS_DIR and readable, or downloads are on and the hub has them (GET /v1/health says why the others cannot)", ref("ListModelsResponse")),
      ...errorResponses([unauthenticated, internal]),
    },
  },
  retrieveModel: {
    tags: [SPEECH_TAG.name],
    operationId: "retrieveModel",
    summary: "Retrieve a model",
    security: bearerOnly,
    parameters: [{ name: "model", in: "path", required: true, description: "The model id", schema: modelIdSchema }],
    responses: {
      200: json("The model", ref("Model")),
      ...errorResponses([
        unauthenticated,
        { code: "not_found", openaiCode: "model_not_found", when: "the model is not one of the ids, or cannot be loaded on this server (the message says why)", example: { message: "The model 'whisper-9' does not exist. Models: tiny, base, small, medium, large.", param: "model" } },
        internal,
      ]),
    },
  },
  createTranscription: audioOperation("transcribe"),
  createTranslation: audioOperation("translate"),
};

const switchingProtocols = {
  description: "Switching Protocols: the session is open",
  headers: { Upgrade: { schema: { type: "string", const: "websocket" } }, Connection: { schema: { type: "string", const: "Upgrade" } } },
};

const socketOperations: Record<keyof typeof SPEECH_SOCKET_PATHS, JsonSchema> = {
  websocket: {
    tags: [SPEECH_TAG.name],
    operationId: "openTranscriptionSocket",
    summary: "Real-time transcription over a WebSocket (Markbook's dictation socket)",
    description:
      "A WebSocket handshake (Upgrade: websocket). The client sends audio as binary frames and {\"type\":\"end\"}; the server " +
      "answers ready, partial, final, language, error and closed messages. The messages are in docs/realtime.md; " +
      "a refusal comes before the upgrade, as a plain HTTP answer.",
    security: socketSecurity,
    parameters: queryParameters(realtimeOptions),
    responses: { 101: switchingProtocols, ...errorResponses(socketRefusals) },
  },
  realtime: {
    tags: [SPEECH_TAG.name],
    operationId: "openRealtimeTranscriptionSession",
    summary: "OpenAI's realtime transcription protocol over a WebSocket",
    description:
      "A WebSocket handshake (Upgrade: websocket, subprotocol realtime) for OpenAI's realtime clients: " +
      "session.update / transcription_session.update, input_audio_buffer.append (base64 PCM16, 24 kHz); the " +
      "conversation.item.added / .done events and conversation.item.input_audio_transcription.delta (live) and .completed " +
      "(with logprobs when the session includes them). Details in docs/realtime.md.",
    security: socketSecurity,
    parameters: [
      { name: "intent", in: "query", required: false, description: "Only transcription sessions are served", schema: { type: "string", const: "transcription" } },
      ...queryParameters(realtimeTranscriptionOptions).filter(({ name }) => name === "model"),
    ],
    responses: { 101: switchingProtocols, ...errorResponses(socketRefusals) },
  },
};

/** The /v1 paths, with the components they refer to. */
export function speechOpenApi() {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const [operation, { methods, path }] of Object.entries(SPEECH_HTTP_OPERATIONS) as [SpeechHttpOperation, (typeof SPEECH_HTTP_OPERATIONS)[SpeechHttpOperation]][]) {
    const described = httpOperations[operation];
    for (const method of methods) {
      paths[path] ??= {};
      // HEAD is GET's answer without the body (Node's http server drops it).
      paths[path][method.toLowerCase()] =
        method === "HEAD"
          ? { ...described, operationId: `${described.operationId as string}Head`, summary: `${described.summary as string} (headers only)`, responses: { 200: { description: "As GET, without the body" } } }
          : described;
    }
  }
  for (const [socket, path] of Object.entries(SPEECH_SOCKET_PATHS) as [keyof typeof SPEECH_SOCKET_PATHS, string][]) paths[path] = { get: socketOperations[socket] };
  return { tag: SPEECH_TAG, paths, securitySchemes: SPEECH_SECURITY_SCHEMES, schemas: speechSchemas };
}
