/**
 * The multipart form of POST /v1/audio/transcriptions and /v1/audio/translations: its field names and
 * how they are read. The handler (http.ts) reads forms with it and the OpenAPI document
 * (openapi.ts) describes the form from it, so that the two name the same fields.
 */
import { AppError } from "../errors";
import { STREAMABLE_FORMATS, type TimestampGranularity } from "./formats";
import { formChunkingStrategy, parseSpeechOptions, transcriptionOptions } from "./options";

export type SpeechTask = "transcribe" | "translate";

/** The part that carries the audio. */
export const AUDIO_FILE_FIELD = "file";

type TranscriptionOption = keyof typeof transcriptionOptions;

/**
 * The form field of each option, as OpenAI's clients name it: an array is repeated `name[]` fields.
 * Every option must have one (a new option without a field does not compile).
 */
export const TRANSCRIPTION_FORM_FIELDS = {
  model: "model",
  language: "language",
  prompt: "prompt",
  response_format: "response_format",
  temperature: "temperature",
  timestamp_granularities: "timestamp_granularities[]",
  stream: "stream",
  chunking_strategy: "chunking_strategy",
} as const satisfies Record<TranscriptionOption, string>;

/** Options a translation refuses: it is always into English. */
const TRANSCRIBE_ONLY_OPTIONS: readonly TranscriptionOption[] = ["language"];

/** The options a task's form takes, in the order of TRANSCRIPTION_FORM_FIELDS. */
export const formOptionsOf = (task: SpeechTask) =>
  (Object.keys(TRANSCRIPTION_FORM_FIELDS) as TranscriptionOption[]).filter((option) => task === "transcribe" || !TRANSCRIBE_ONLY_OPTIONS.includes(option));

/** Reads and checks the form's text fields (the file is read apart); the first problem is a 400 naming its field. */
export function readTranscriptionForm(fields: Map<string, string[]>, task: SpeechTask) {
  const refused = task === "translate" ? TRANSCRIBE_ONLY_OPTIONS.find((option) => fields.has(TRANSCRIPTION_FORM_FIELDS[option])) : undefined;
  if (refused) throw new AppError("invalid", `Translations are always into English and take no '${refused}' field.`, refused);
  const granularityField = TRANSCRIPTION_FORM_FIELDS.timestamp_granularities;
  const granularities = [...(fields.get(granularityField) ?? []), ...(fields.get(granularityField.slice(0, -"[]".length)) ?? [])]
    .flatMap((value) => value.split(","))
    .map((value) => value.trim())
    .filter(Boolean);
  // Every option from its field's first value, except the two a form may spread over several fields.
  const values = parseSpeechOptions(transcriptionOptions, {
    ...Object.fromEntries(formOptionsOf(task).map((option) => [option, fields.get(TRANSCRIPTION_FORM_FIELDS[option])?.[0]])),
    timestamp_granularities: granularities,
    chunking_strategy: formChunkingStrategy(fields),
  });
  if (values.timestamp_granularities.length > 0 && values.response_format !== "verbose_json") {
    throw new AppError("invalid", "timestamp_granularities needs response_format=verbose_json.", "timestamp_granularities");
  }
  // Refused rather than ignored: a client that asked for a stream reads the answer as events.
  if (values.stream && !STREAMABLE_FORMATS.includes(values.response_format)) {
    throw new AppError("invalid", `stream=true streams text: it needs response_format ${STREAMABLE_FORMATS.join(" or ")}, not ${values.response_format}.`, "stream");
  }
  return { ...values, timestamp_granularities: [...new Set(values.timestamp_granularities)] as TimestampGranularity[] };
}
