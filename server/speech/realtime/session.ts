/**
 * The session core of real-time transcription; the protocols are in docs/realtime.md. One
 * `RealtimeSession` (audio framing, rate-limit accounting, endpointing, the engine queue, backpressure,
 * limits) speaks whichever protocol its connection implements (protocol.ts): Markbook's dictation
 * socket (dictation.ts) or OpenAI's realtime transcription (openai.ts); it knows neither. Its audio
 * comes in through the intake (audio-intake.ts: 20 ms frames, each counted against the key's budget).
 * An endpointer (turn-detector.ts over vad/endpointer.ts: the Silero VAD) cuts the audio into
 * utterances (utterance.ts); while one grows, partial passes run (stabilised by agreement between
 * consecutive passes, stabilise.ts); when it ends (silence, a commit, or 28 s), its final pass runs.
 * The final's pass may start early, in a pause: if the speaker does not resume, it is the final. The
 * session decides which pass runs when; passes.ts runs them, transcriber.ts makes their requests of the
 * engine.
 */
import crypto from "node:crypto";
import type { WebSocket } from "ws";
import { AppError } from "../../errors";
import { logger } from "../../logger";
import { SAMPLE_RATE } from "../audio";
import { CancelledJobError } from "../engine-pool";
import type { SpeechService } from "../service";
import { END_PADDING_MS } from "../vad/regions";
import { AudioIntake, FRAME_SAMPLES } from "./audio-intake";
import type { ProtocolConnection, SessionControls, SessionEvent, SessionSettings } from "./protocol";
import { SessionTranscriber } from "./transcriber";
import { TurnDetector } from "./turn-detector";
import { UtterancePasses } from "./passes";
import { type Utterance, addFrame, newUtterance } from "./utterance";

/** No partial pass is started once the speaker has been silent this long: the final is near. */
const PARTIAL_QUIET_MS = 200;
/** An utterance is cut here even without a pause: Whisper sees 30 s at a time. */
const MAX_UTTERANCE_SECONDS = 28;
/** A partial pass is run each time the utterance has grown by this much. */
const PARTIAL_EVERY_MS = 1000;
/** Utterances waiting for their final pass; beyond this the client is sending faster than we decode. */
const MAX_BUFFERED_SECONDS = 120;
/** Messages the client has not read yet; past this it is not reading at all, and the session ends. */
const MAX_UNREAD_BYTES = 4 * 1024 * 1024;

export class RealtimeSession implements SessionControls {
  readonly id = crypto.randomUUID();
  readonly settings: SessionSettings;
  private readonly abort = new AbortController();
  private totalSamples = 0;
  private readonly intake: AudioIntake;
  private readonly transcriber: SessionTranscriber;
  private utterance: Utterance | null = null;
  private readonly turns = new TurnDetector();
  private silentMs = 0;
  private nextUtteranceId = 0;
  private readonly finals: Utterance[] = [];
  private working = false;
  private ending: string | null = null;
  private closed = false;
  private ready = false;
  private readonly passes: UtterancePasses;

  constructor(
    readonly service: SpeechService,
    private readonly ws: WebSocket,
    settings: SessionSettings,
    private readonly connection: ProtocolConnection,
    keyId: string,
  ) {
    this.intake = new AudioIntake(
      {
        ending: () => Boolean(this.ending),
        closed: () => this.closed,
        takeAudio: (seconds) => service.rateLimiter.takeAudio(keyId, seconds),
        onFrame: (frame) => this.onFrame(frame),
        onEnd: () => this.finish("end"),
        onRefused: (error) => {
          this.sendError(error);
          this.finish(error instanceof AppError && error.code === "rate_limited" ? "rate_limited" : "unavailable");
        },
        onOverflow: () => this.overflow(),
        fail: (error) => this.fail(error),
      },
      MAX_BUFFERED_SECONDS * SAMPLE_RATE,
    );
    this.settings = { ...settings };
    this.transcriber = new SessionTranscriber(service, this.settings, this.abort.signal, (code) => this.emit({ type: "language", code }));
    const source = service.config.modelSources[settings.model];
    // Loading the model (if needed) is the first job; `ready` says it is done. Audio that arrives
    // before is kept and transcribed afterwards.
    const wordTimestamps = service.pool.supportsWordTimestamps(settings.model, source, this.abort.signal);
    this.passes = new UtterancePasses(
      {
        settings: this.settings,
        current: () => this.utterance,
        trailingSilenceFrames: () => this.trailingSilenceFrames(),
        emit: (event) => this.emit(event),
        sendError: (error) => this.sendError(error),
      },
      this.transcriber,
      this.abort.signal,
      wordTimestamps,
    );
    wordTimestamps.then(
      () => {
        this.ready = true;
        this.emit({ type: "ready" });
        this.pump();
      },
      (error: unknown) => {
        if (error instanceof CancelledJobError) return;
        this.sendError(error);
        this.closed = true;
        this.ws.close(1011, "model unavailable");
      },
    );
    ws.on("message", (data, isBinary) => this.onMessage(data as Buffer, isBinary));
    ws.on("close", () => {
      this.closed = true;
      this.abort.abort();
    });
    ws.on("error", () => this.abort.abort());
    this.emit({ type: "opened" });
  }

  private emit(event: SessionEvent) {
    for (const message of this.connection.render(event, this)) this.send(message);
  }

  private send(message: object) {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    if (this.ws.bufferedAmount > MAX_UNREAD_BYTES) {
      // The client reads nothing we send (e.g. floods bad frames, each answered with an error).
      logger.debug(`realtime session ${this.id}: the client is not reading; the session ends`);
      this.closed = true;
      this.ws.terminate();
      return;
    }
    this.ws.send(JSON.stringify(message));
  }

  sendError(error: unknown, eventId?: string) {
    this.emit({ type: "error", error, eventId });
  }

  reply(message: object) {
    this.send(message);
  }

  shutdown() {
    this.finish("server_shutdown");
  }

  /**
   * Every frame ends here, whatever it holds: nothing it contains may throw out of the socket's event
   * (that would skip the session's release). A failure of ours ends the session with 1011.
   */
  private onMessage(data: Buffer, isBinary: boolean) {
    try {
      if (this.ending || this.intake.ended) return;
      this.connection.onMessage(data, isBinary, this);
    } catch (error) {
      this.fail(error);
    }
  }

  /** An error of the server's own (a bug, not the client's input): say so, and end the session. */
  private fail(error: unknown) {
    logger.error(`realtime session ${this.id} failed`, error);
    this.sendError(new AppError("internal", "The real-time session failed on the server; open a new one."));
    this.closed = true;
    this.abort.abort();
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(1011, "internal error");
    else this.ws.terminate();
  }

  end() {
    // The audio sent before the end is transcribed first.
    this.intake.end();
  }

  commit(eventId?: string) {
    this.enqueueControl(() => {
      if (this.utterance) {
        this.endUtterance();
        this.pump();
      } else this.sendError(new AppError("invalid", "The input audio buffer holds no speech to commit: append audio first.", undefined, "input_audio_buffer_commit_empty"), eventId);
    });
  }

  clear() {
    this.intake.dropPartialFrame();
    this.enqueueControl(() => {
      this.passes.cancelPartial();
      this.utterance = null;
      this.turns.dropLeadIn();
      this.silentMs = 0;
      this.emit({ type: "cleared" });
    });
  }

  configure(settings: Partial<SessionSettings>) {
    Object.assign(this.settings, settings);
    if ("language" in settings) this.transcriber.setLanguage(settings.language);
  }

  /** Runs `control` after the audio received before it. */
  private enqueueControl(control: () => void) {
    if (this.ending || this.intake.ended) return;
    this.intake.enqueueControl(control);
  }

  acceptAudio(samples: Float32Array) {
    if (this.ending || this.intake.ended) return;
    this.intake.acceptAudio(samples);
  }

  private onFrame(frame: Float32Array) {
    this.totalSamples += frame.length;
    if (this.totalSamples > this.service.config.wsMaxSessionSeconds * SAMPLE_RATE) {
      this.sendError(new AppError("invalid", `The session reached its maximum length of ${this.service.config.wsMaxSessionSeconds} s of audio.`, "audio"));
      this.finish("session_too_long");
      return;
    }
    const turn = this.settings.turnDetection;
    if (!turn) {
      // No turn detection: every sample belongs to the buffer, which only a commit (or 28 s) ends.
      const utterance = (this.utterance ??= newUtterance(this.nextUtteranceId++, this.totalSamples - frame.length, []));
      addFrame(utterance, frame);
      if (utterance.length >= MAX_UTTERANCE_SECONDS * SAMPLE_RATE) this.endUtterance();
      this.pump();
      return;
    }
    const step = this.turns.push(frame, turn, this.settings.endpointing);

    if (!this.utterance) {
      if (!step.speaking) {
        this.turns.keepLeadIn(frame, turn.paddingMs);
        return;
      }
      const leadIn = this.turns.takeLeadIn();
      const lead = leadIn.reduce((sum, chunk) => sum + chunk.length, 0);
      this.utterance = newUtterance(this.nextUtteranceId++, this.totalSamples - frame.length - lead, leadIn);
      this.silentMs = 0;
      this.emit({ type: "speech_started", utterance: this.utterance });
    }
    const utterance = this.utterance;
    addFrame(utterance, frame);
    this.silentMs = step.silentMs;
    if (step.silentMs === 0 && utterance.early) this.passes.demoteEarly(utterance, utterance.early); // the speaker resumed
    // The final's pass goes first; but the utterance's first partial is let through (a speaker who pauses
    // often would otherwise see no partial at all on a busy engine).
    if (this.earlyFinalDue(utterance) && utterance.previousWords !== null) this.passes.cancelPartial();
    if (step.ended || utterance.length >= MAX_UTTERANCE_SECONDS * SAMPLE_RATE) {
      // The final keeps the trailing silence its early pass saw (that pass is then the final); else END_PADDING_MS.
      const trimFrames = utterance.early ? (utterance.length - utterance.early.length) / FRAME_SAMPLES : this.trailingSilenceFrames();
      utterance.chunks.splice(utterance.chunks.length - trimFrames, trimFrames);
      utterance.length -= trimFrames * FRAME_SAMPLES;
      this.emit({ type: "speech_stopped", utterance });
      this.endUtterance();
    }
    this.pump();
  }

  /** Frames of trailing silence beyond the END_PADDING_MS an utterance keeps. */
  private trailingSilenceFrames() {
    return Math.max(0, Math.floor((this.silentMs - END_PADDING_MS) / ((FRAME_SAMPLES / SAMPLE_RATE) * 1000)));
  }

  /** The speaker has paused long enough for the final's pass to start before the utterance ends. */
  private earlyFinalDue(utterance: Utterance) {
    const after = this.settings.turnDetection ? this.turns.earlyFinalAfterMs : null;
    return after !== null && after !== undefined && !utterance.early && !this.ending && this.silentMs >= after;
  }

  /** The current utterance is complete (silence, a commit, 28 s, the session's end): its final pass is queued. */
  private endUtterance() {
    if (!this.utterance) return;
    this.passes.cancelPartial();
    this.finals.push(this.utterance);
    this.emit({ type: "committed", utterance: this.utterance });
    this.utterance = null;
    this.silentMs = 0;
    const buffered = this.finals.reduce((sum, utterance) => sum + utterance.length, 0) / SAMPLE_RATE;
    if (buffered > MAX_BUFFERED_SECONDS) this.overflow();
  }

  private overflow() {
    this.sendError(new AppError("rate_limited", `Too much audio is waiting to be transcribed (over ${MAX_BUFFERED_SECONDS} s): send audio no faster than real time.`, undefined, "rate_limit_exceeded"));
    this.finish("buffer_overflow");
  }

  /** Runs the next job: finals first, in order; else a partial of the growing utterance. */
  private pump() {
    try {
      this.next();
    } catch (error) {
      this.fail(error);
    }
  }

  private next() {
    if (this.working || this.closed || !this.ready) return;
    const final = this.finals.shift();
    if (final) {
      this.working = true;
      void this.passes.runFinal(final).finally(() => {
        this.working = false;
        this.pump();
      });
      return;
    }
    const utterance = this.utterance;
    if (utterance && this.earlyFinalDue(utterance)) {
      this.working = true;
      void this.passes.startEarlyFinal(utterance).finally(() => {
        this.working = false;
        this.pump();
      });
      return;
    }
    if (utterance && this.settings.partials && !this.ending && this.silentMs < PARTIAL_QUIET_MS && utterance.sinceLastPartial >= (PARTIAL_EVERY_MS / 1000) * SAMPLE_RATE) {
      utterance.sinceLastPartial = 0;
      this.working = true;
      void this.passes.runPartial(utterance).finally(() => {
        this.working = false;
        this.pump();
      });
      return;
    }
    if (this.ending && !this.utterance && this.finals.length === 0) this.close(this.ending);
  }

  /** Stops taking audio, flushes the current utterance, and closes once every final is sent. */
  private finish(reason: string) {
    if (this.ending) return;
    this.ending = reason;
    const rest = this.intake.partialFrame;
    if (rest && this.utterance) {
      this.utterance.chunks.push(rest);
      this.utterance.length += rest.length;
    }
    this.endUtterance();
    this.pump();
  }

  private close(reason: string) {
    this.emit({ type: "closed", reason, audioSeconds: Math.round((this.totalSamples / SAMPLE_RATE) * 100) / 100, segments: this.nextUtteranceId });
    this.ws.close(1000, reason);
    logger.debug(`realtime session ${this.id} closed: ${reason}`);
  }
}
