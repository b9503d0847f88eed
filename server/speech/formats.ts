/**
 * Response shapes of the transcription endpoints, exactly as OpenAI's (pure functions, golden-tested).
 *   json          application/json           {"text": "…"}
 *   verbose_json  application/json           {task, language, duration, text, segments?, words?}
 *   text          text/plain; charset=utf-8  the text and a newline
 *   srt           application/x-subrip       numbered cues, HH:MM:SS,mmm
 *   vtt           text/vtt; charset=utf-8    "WEBVTT" header, HH:MM:SS.mmm
 * The contract declares application/json for all four shapes
 * (docs/spec/speech-api.md "POST /v1/audio/transcriptions"); plain text is sent with a text type
 * because OpenAI does so and its clients pick JSON parsing from the content type (docs/decisions.md
 * "HTTP answers").
 */

export const RESPONSE_FORMATS = ["json", "text", "srt", "verbose_json", "vtt"] as const;
export type ResponseFormat = (typeof RESPONSE_FORMATS)[number];
/** The Content-Type each format is sent with (the OpenAPI document lists the same). */
export const RESPONSE_CONTENT_TYPES: Readonly<Record<ResponseFormat, string>> = {
  json: "application/json",
  verbose_json: "application/json",
  text: "text/plain; charset=utf-8",
  srt: "application/x-subrip; charset=utf-8",
  vtt: "text/vtt; charset=utf-8",
};
/**
 * The formats `stream=true` may be combined with: both stream text only (OpenAI's transcript events).
 * The timed formats would need a shape OpenAI's clients do not know.
 */
export const STREAMABLE_FORMATS: readonly ResponseFormat[] = ["json", "text"];
export type TimestampGranularity = "word" | "segment";

export interface Word {
  word: string;
  start: number;
  end: number;
  probability?: number;
}

export interface Segment {
  id: number;
  /** Start of the 30 s window that produced the segment, seconds. */
  seek: number;
  start: number;
  end: number;
  text: string;
  tokens: number[];
  temperature: number;
  avg_logprob: number;
  compression_ratio: number;
  no_speech_prob: number;
  words?: Word[];
}

export interface Transcript {
  task: "transcribe" | "translate";
  /** Lowercase English name of the language, as OpenAI reports it ("english"). */
  language: string;
  duration: number;
  text: string;
  segments: Segment[];
  words?: Word[];
}

/** The body of response_format=json. */
export interface JsonTranscription {
  text: string;
}

export interface RenderedResponse {
  contentType: string;
  body: string;
}

/** 3725.5 → "01:02:05,500" (SRT) or "01:02:05.500" (VTT); hours grow past 99 rather than wrap. */
export function formatTimestamp(seconds: number, decimalMarker: "," | "."): string {
  const totalMs = Math.max(0, Math.round(seconds * 1000));
  const hours = Math.floor(totalMs / 3_600_000);
  const minutes = Math.floor((totalMs % 3_600_000) / 60_000);
  const secs = Math.floor((totalMs % 60_000) / 1000);
  const ms = totalMs % 1000;
  const pad = (value: number, width: number) => String(value).padStart(width, "0");
  return `${pad(hours, 2)}:${pad(minutes, 2)}:${pad(secs, 2)}${decimalMarker}${pad(ms, 3)}`;
}

type Cue = Pick<Segment, "start" | "end" | "text">;

const cuesOf = (segments: readonly Cue[]) =>
  segments.map((segment) => ({ ...segment, text: segment.text.trim() })).filter((segment) => segment.text !== "");

export function renderSrt(segments: readonly Cue[]): string {
  return cuesOf(segments)
    .map((cue, index) => `${index + 1}\n${formatTimestamp(cue.start, ",")} --> ${formatTimestamp(cue.end, ",")}\n${cue.text}\n\n`)
    .join("");
}

export function renderVtt(segments: readonly Cue[]): string {
  return (
    "WEBVTT\n\n" +
    cuesOf(segments)
      .map((cue) => `${formatTimestamp(cue.start, ".")} --> ${formatTimestamp(cue.end, ".")}\n${cue.text}\n\n`)
      .join("")
  );
}

/** Seconds rounded to the centisecond grid Whisper's timestamps live on, without float noise. */
const roundTime = (seconds: number) => Math.round(seconds * 100) / 100;
const roundStat = (value: number) => Math.round(value * 1e6) / 1e6;

export function verboseJson(transcript: Transcript, granularities: readonly TimestampGranularity[]) {
  const wantSegments = granularities.length === 0 || granularities.includes("segment");
  const wantWords = granularities.includes("word");
  const word = (w: Word): Word => ({ word: w.word, start: roundTime(w.start), end: roundTime(w.end), ...(w.probability === undefined ? {} : { probability: roundStat(w.probability) }) });
  return {
    task: transcript.task,
    language: transcript.language,
    duration: roundTime(transcript.duration),
    text: transcript.text,
    ...(wantSegments
      ? {
          segments: transcript.segments.map((segment) => ({
            id: segment.id,
            seek: segment.seek,
            start: roundTime(segment.start),
            end: roundTime(segment.end),
            text: segment.text,
            tokens: segment.tokens,
            temperature: segment.temperature,
            avg_logprob: roundStat(segment.avg_logprob),
            compression_ratio: roundStat(segment.compression_ratio),
            no_speech_prob: roundStat(segment.no_speech_prob),
            ...(wantWords && segment.words ? { words: segment.words.map(word) } : {}),
          })),
        }
      : {}),
    ...(wantWords ? { words: (transcript.words ?? []).map(word) } : {}),
  };
}

export function renderTranscript(
  transcript: Transcript,
  format: ResponseFormat,
  granularities: readonly TimestampGranularity[] = [],
): RenderedResponse {
  return { contentType: RESPONSE_CONTENT_TYPES[format], body: renderBody(transcript, format, granularities) };
}

function renderBody(transcript: Transcript, format: ResponseFormat, granularities: readonly TimestampGranularity[]): string {
  switch (format) {
    case "json":
      return JSON.stringify({ text: transcript.text } satisfies JsonTranscription);
    case "verbose_json":
      return JSON.stringify(verboseJson(transcript, granularities));
    case "text":
      return `${transcript.text}\n`;
    case "srt":
      return renderSrt(transcript.segments);
    case "vtt":
      return renderVtt(transcript.segments);
  }
}
