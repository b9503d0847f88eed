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

const fields = {
  model: z.string().optional(),
  language: z
    .string()
    .regex(/^[a-z]{2}$/, "must be an ISO-639-1 code: two lowercase letters")
    .refine(isWhisperLanguage, "is not a language Whisper knows")
    .optional(),
  prompt: z.string().max(PROMPT_MAX_CHARACTERS, `must have at most ${PROMPT_MAX_CHARACTERS} characters`).optional(),
  response_format: z.enum(RESPONSE_FORMATS).default("json"),
  temperature: numberText("must be a number from 0 to 1")
    .pipe(z.number().min(0, "must be at least 0").max(1, "must be at most 1"))
    .default(0),
  timestamp_granularities: z.array(z.enum(["word", "segment"])).default([]),
  // A form field is text: only the two words OpenAI's clients send for a boolean.
  stream: z
    .enum(["true", "false"], { error: "must be true or false" })
    .default("false")
    .transform((value) => value === "true"),
  // The socket's own options.
  task: z.enum(["transcribe", "translate"], { error: "must be transcribe or translate" }).default("transcribe"),
  encoding: z.enum(["pcm_s16le", "pcm_f32le"], { error: "must be pcm_s16le or pcm_f32le" }).default("pcm_s16le"),
  sample_rate: numberText(`must be ${SAMPLE_RATE}: send 16 kHz mono audio`)
    .pipe(z.literal(SAMPLE_RATE, { error: `must be ${SAMPLE_RATE}: send 16 kHz mono audio` }))
    .default(SAMPLE_RATE),
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
export function parseSpeechOptions<Shape extends z.ZodRawShape>(shape: Shape, values: Record<string, string | string[] | undefined>): z.infer<z.ZodObject<Shape>> {
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
