/**
 * The speech options both edges take (multipart fields of /v1/audio/*, query parameters of
 * /v1/websocket), defined once so that one value means the same thing, and is refused the same way,
 * on both.
 */
import { z } from "zod";
import { AppError } from "../errors";
import { SAMPLE_RATE } from "./audio";
import { RESPONSE_FORMATS } from "./formats";
import { isWhisperLanguage } from "./languages";
import { FILE_VAD_DEFAULTS, type VadParameters } from "./vad/regions";

/** A number written as text (a form field, a query parameter): empty or blank is refused, never read as 0. */
const numberText = (message: string) =>
  z
    .string()
    .trim()
    .regex(/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/, message)
    .transform(Number)
    .pipe(z.number({ error: message }));

/** The longest prompt a request may carry (the engine keeps its last 223 tokens). */
export const PROMPT_MAX_CHARACTERS = 4000;
/** A number given as a JSON number or as text (a bracketed form field). */
const numberOrText = (message: string) => z.union([z.number({ error: message }), numberText(message)], { error: message });
const milliseconds = (name: string) =>
  numberOrText(`${name} must be a whole number of milliseconds from 0 to 10000`).pipe(
    z.number().int(`${name} must be a whole number of milliseconds from 0 to 10000`).min(0, `${name} must be at least 0`).max(10_000, `${name} must be at most 10000`),
  );

/** OpenAI's VadConfig object; unknown keys are refused (a misspelt parameter would otherwise be ignored). */
export const serverVadConfig = z.strictObject(
  {
    type: z.literal("server_vad", { error: 'type must be "server_vad"' }),
    threshold: numberOrText("threshold must be a number from 0 to 1")
      .pipe(z.number().min(0, "threshold must be at least 0").max(1, "threshold must be at most 1"))
      .optional()
      .describe(`Probability at or above which a chunk is speech (default ${FILE_VAD_DEFAULTS.threshold})`),
    prefix_padding_ms: milliseconds("prefix_padding_ms").optional().describe(`Audio kept before the speech, ms (default ${FILE_VAD_DEFAULTS.prefixPaddingMs})`),
    silence_duration_ms: milliseconds("silence_duration_ms")
      .optional()
      .describe(`Silence that ends a stretch of speech, ms (default ${FILE_VAD_DEFAULTS.silenceDurationMs})`),
  },
  { error: (issue) => (issue.code === "unrecognized_keys" ? `unknown key ${JSON.stringify(issue.keys[0]).slice(0, 60)}` : 'must be "auto" or an object {"type":"server_vad", …}') },
);

/** The chunking_strategy that means server_vad with its defaults. */
export const CHUNKING_AUTO = "auto";
const CHUNKING_HELP = 'must be "auto" or a JSON object {"type":"server_vad","threshold":0.5,"prefix_padding_ms":300,"silence_duration_ms":200}';

/**
 * chunking_strategy: "auto" (the server_vad defaults), a JSON object (as OpenAI's docs write it), or
 * the object as bracketed fields (`chunking_strategy[type]=server_vad`, as the openai clients send an
 * object in a form). The VAD parameters, or undefined when not given.
 */
const chunkingStrategy = z
  .union(
    [
      z.string().max(1000, "must have at most 1000 characters"),
      // The bracketed fields' object as it is (a record schema would drop a "__proto__" key rather than refuse it).
      z.custom<Record<string, string>>((value) => typeof value === "object" && value !== null && !Array.isArray(value)),
    ],
    { error: CHUNKING_HELP },
  )
  .transform((value, context): VadParameters => {
    let object: unknown = value;
    if (typeof value === "string") {
      try {
        object = value.trim() === CHUNKING_AUTO ? CHUNKING_AUTO : JSON.parse(value);
      } catch {
        object = undefined;
      }
    }
    if (object === CHUNKING_AUTO) return FILE_VAD_DEFAULTS;
    const parsed = serverVadConfig.safeParse(object);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      context.addIssue({ code: "custom", message: typeof object === "object" && object !== null && !Array.isArray(object) ? issue.message : CHUNKING_HELP });
      return z.NEVER;
    }
    return {
      threshold: parsed.data.threshold ?? FILE_VAD_DEFAULTS.threshold,
      prefixPaddingMs: parsed.data.prefix_padding_ms ?? FILE_VAD_DEFAULTS.prefixPaddingMs,
      silenceDurationMs: parsed.data.silence_duration_ms ?? FILE_VAD_DEFAULTS.silenceDurationMs,
    };
  })
  .optional()
  .describe(
    `"${CHUNKING_AUTO}" or a server_vad object (JSON text, or chunking_strategy[type], chunking_strategy[threshold], … fields): ` +
      "only the speech that voice-activity detection finds is transcribed. Absent: the whole file.",
  );

/**
 * The chunking_strategy of a form: its plain field, or its bracketed fields gathered into one object
 * (first value of each). Both at once is refused.
 */
export function formChunkingStrategy(fields: Map<string, string[]>): string | Record<string, string> | undefined {
  const bracketed = [...fields].filter(([name]) => name.startsWith("chunking_strategy["));
  if (bracketed.length === 0) return fields.get("chunking_strategy")?.[0];
  if (fields.has("chunking_strategy")) throw new AppError("invalid", "chunking_strategy: give it once, either as one field or as chunking_strategy[…] fields.", "chunking_strategy");
  const object: Record<string, string> = {};
  for (const [name, values] of bracketed) {
    const key = /^chunking_strategy\[([^\]]*)\]$/.exec(name)?.[1];
    if (key === undefined) throw new AppError("invalid", `chunking_strategy: unexpected field ${JSON.stringify(name).slice(0, 80)}.`, "chunking_strategy");
    Object.defineProperty(object, key, { value: values[0] ?? "", enumerable: true });
  }
  return object;
}

// The descriptions are the OpenAPI document's (server/speech/openapi.ts); they change no parsing.
const fields = {
  model: z.string().optional().describe("The model id, or whisper-1 (OpenAI's name) for the configured default (SPEECH_DEFAULT_MODEL). Absent: the default."),
  language: z
    .string()
    .regex(/^[a-z]{2}$/, "must be an ISO-639-1 code: two lowercase letters")
    .refine(isWhisperLanguage, "is not a language Whisper knows")
    .optional()
    .describe("The language of the audio: an ISO-639-1 code that Whisper knows. Absent: detected from the audio."),
  prompt: z
    .string()
    .max(PROMPT_MAX_CHARACTERS, `must have at most ${PROMPT_MAX_CHARACTERS} characters`)
    .optional()
    .describe("Words to spell right (names, terms) or the text before the audio, in the language of the output. The engine keeps its last 223 tokens."),
  response_format: z
    .enum(RESPONSE_FORMATS)
    .default("json")
    .describe("json: {text}; verbose_json: {task, language, duration, text, segments, words}; text, srt or vtt: plain text."),
  temperature: numberText("must be a number from 0 to 1")
    .pipe(z.number().min(0, "must be at least 0").max(1, "must be at most 1"))
    .default(0)
    .describe("Sampling temperature; higher is more random. 0 decodes greedily, retrying a failed window hotter (SPEECH_FALLBACK_TEMPERATURES)."),
  timestamp_granularities: z
    .array(z.enum(["word", "segment"]))
    .default([])
    .describe(
      "The timestamps of verbose_json (needs response_format=verbose_json; word needs a model that gives word timings). " +
        "Repeated timestamp_granularities[] fields, as OpenAI's clients send them; timestamp_granularities, repeated or comma-separated, is read too.",
    ),
  // A form field is text: only the two words OpenAI's clients send for a boolean.
  stream: z
    .enum(["true", "false"], { error: "must be true or false" })
    .default("false")
    .transform((value) => value === "true")
    .describe("true: the answer is server-sent events, transcript.text.delta as the audio is decoded, then transcript.text.done. Needs response_format json or text."),
  chunking_strategy: chunkingStrategy,
  // The socket's own options.
  task: z
    .enum(["transcribe", "translate"], { error: "must be transcribe or translate" })
    .default("transcribe")
    .describe("transcribe (in the language of the audio) or translate (into English)."),
  encoding: z
    .enum(["pcm_s16le", "pcm_f32le"], { error: "must be pcm_s16le or pcm_f32le" })
    .default("pcm_s16le")
    .describe("The binary frames' samples: 16-bit signed or 32-bit float (−1…1), little-endian, mono."),
  sample_rate: numberText(`must be ${SAMPLE_RATE}: send 16 kHz mono audio`)
    .pipe(z.literal(SAMPLE_RATE, { error: `must be ${SAMPLE_RATE}: send 16 kHz mono audio` }))
    .default(SAMPLE_RATE)
    .describe("Samples per second of the audio; only 16000."),
};

/** Multipart fields of POST /v1/audio/transcriptions and /translations. */
export const transcriptionOptions = {
  model: fields.model,
  language: fields.language,
  prompt: fields.prompt,
  response_format: fields.response_format,
  temperature: fields.temperature,
  timestamp_granularities: fields.timestamp_granularities,
  stream: fields.stream,
  chunking_strategy: fields.chunking_strategy,
};

/** Query parameters of /v1/websocket: the same model, language, prompt and temperature, and the socket's own. */
export const realtimeOptions = {
  model: fields.model,
  language: fields.language,
  prompt: fields.prompt,
  temperature: fields.temperature,
  task: fields.task,
  encoding: fields.encoding,
  sample_rate: fields.sample_rate,
};

/** The transcription settings of /v1/realtime's session config (OpenAI's input_audio_transcription). */
export const realtimeTranscriptionOptions = {
  model: fields.model,
  language: fields.language,
  prompt: fields.prompt,
};

/**
 * Parses options with one of the shapes above; the first problem is a 400 naming its parameter. An
 * empty text option (`language=`, `model=`) means "not given"; an empty number is refused (above).
 */
export function parseSpeechOptions<Shape extends z.ZodRawShape>(
  shape: Shape,
  values: Record<string, string | string[] | Record<string, string> | undefined>,
): z.infer<z.ZodObject<Shape>> {
  const input: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(values)) {
    const numeric = name === "temperature" || name === "sample_rate";
    input[name] = value === "" && !numeric ? undefined : value;
  }
  const parsed = z.object(shape).safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const param = String(issue.path[0] ?? "");
    throw new AppError("invalid", `${param}: ${issue.message}`, param);
  }
  return parsed.data;
}
