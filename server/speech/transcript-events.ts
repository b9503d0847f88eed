/**
 * `stream=true` on /v1/audio/*: OpenAI's transcript events as server-sent events.
 *   data: {"type":"transcript.text.delta","delta":"…"}   one per segment, as each 30 s window is decoded
 *   data: {"type":"transcript.text.done","text":"…"}     last; the same text as the json answer
 *   data: {"type":"error","error":{message,type,code,param}}   a failure after the first event, last
 * The status and headers go out with the first event, so that everything refused before it (fields,
 * file, limits, a model that cannot load) is a plain JSON error with the contract's status and body
 * (docs/spec/speech-api.md "Errors").
 */
import type { ServerResponse } from "node:http";
import { openaiErrorBody } from "../errors";
import type { Segment } from "./formats";

export const EVENT_STREAM_TYPE = "text/event-stream; charset=utf-8";

/** The events of a stream, as the OpenAPI document describes them. */
export interface TranscriptTextDeltaEvent {
  type: "transcript.text.delta";
  delta: string;
}
export interface TranscriptTextDoneEvent {
  type: "transcript.text.done";
  text: string;
}
export type TranscriptErrorEvent = { type: "error" } & ReturnType<typeof openaiErrorBody>["body"];
type TranscriptEvent = TranscriptTextDeltaEvent | TranscriptTextDoneEvent | TranscriptErrorEvent;
/**
 * A comment line this often between events: a window of a large model on a small CPU can take longer
 * than a proxy waits on a silent connection (nginx: 60 s). Event-stream readers skip comments.
 */
const KEEP_ALIVE_MS = 15_000;

export const isEventStream = (response: ServerResponse) => String(response.getHeader("content-type") ?? "").startsWith("text/event-stream");

export class TranscriptEventStream {
  /** Every segment's text so far, joined as the transcript's text is (then trimmed). */
  private joined = "";
  /** Characters of the trimmed text already sent as deltas. */
  private sent = 0;

  constructor(
    private readonly response: ServerResponse,
    private readonly headers: Record<string, string>,
    private readonly keepAliveMs = KEEP_ALIVE_MS,
  ) {}

  /**
   * One delta per segment. The text is `segments.join("").trim()`: leading blanks are never sent and
   * trailing ones wait for the next segment, so that the deltas add up to exactly the done text.
   */
  segments(segments: readonly Segment[]) {
    for (const segment of segments) {
      this.joined += segment.text;
      const text = this.joined.trim();
      if (text.length > this.sent) {
        this.write({ type: "transcript.text.delta", delta: text.slice(this.sent) });
        this.sent = text.length;
      }
    }
  }

  done(text: string) {
    this.write({ type: "transcript.text.done", text });
    this.response.end();
  }

  private write(event: TranscriptEvent) {
    if (this.response.destroyed) return;
    if (!this.response.headersSent) {
      // Set one by one, not through writeHead, so that isEventStream can read them back.
      // no-transform and X-Accel-Buffering: proxies must pass each event on at once.
      const headers = { "content-type": EVENT_STREAM_TYPE, "cache-control": "no-cache, no-transform", "x-accel-buffering": "no", ...this.headers };
      for (const [name, value] of Object.entries(headers)) this.response.setHeader(name, value);
      this.response.writeHead(200);
      const keepAlive = setInterval(() => {
        if (!this.response.writableEnded) this.response.write(": keep-alive\n\n");
      }, this.keepAliveMs).unref();
      // Every way the stream ends (done, an error event, the client gone) closes the response.
      this.response.once("close", () => clearInterval(keepAlive));
    }
    writeEvent(this.response, event);
  }
}

const writeEvent = (response: ServerResponse, event: TranscriptEvent) => response.write(`data: ${JSON.stringify(event)}\n\n`);

/**
 * A failure once events have gone out: the status is sent already, so the contract's error body
 * (docs/spec/speech-api.md "Error (object)") goes
 * as the last event (the openai clients throw it as an APIError), and the stream ends.
 */
export function endStreamWithError(response: ServerResponse, error: unknown) {
  if (!response.destroyed) writeEvent(response, { type: "error", ...openaiErrorBody(error).body });
  response.end();
}
