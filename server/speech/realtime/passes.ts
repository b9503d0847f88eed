/**
 * The passes over an utterance: partials while it grows (stabilised, best effort), the final's pass
 * started early in a pause (the final if the speaker does not resume, else a partial), and the final
 * (never dropped for a busy engine). The session decides which runs when; this module runs them.
 */
import { AppError } from "../../errors";
import { CancelledJobError } from "../engine-pool";
import type { TranscribeResult } from "../engine-protocol";
import { FRAME_SAMPLES } from "./audio-intake";
import type { SessionEvent, SessionSettings } from "./protocol";
import { stabilisePartial, wordsOfText } from "./stabilise";
import type { SessionTranscriber } from "./transcriber";
import { type Utterance, joinChunks } from "./utterance";

/** What the passes ask of their session. */
export interface PassesSession {
  readonly settings: SessionSettings;
  /** The utterance being spoken now (null between utterances). */
  current(): Utterance | null;
  /** Frames of trailing silence beyond the END_PADDING_MS an utterance keeps. */
  trailingSilenceFrames(): number;
  emit(event: SessionEvent): void;
  sendError(error: unknown): void;
}

export class UtterancePasses {
  /** Cancels the partial pass in flight: once its utterance has ended, only the final matters. */
  private partialAbort: AbortController | null = null;

  /** `signal`: the session's (its end cancels every pass); `wordTimestamps`: whether the model has word timings. */
  constructor(
    private readonly session: PassesSession,
    private readonly transcriber: SessionTranscriber,
    private readonly signal: AbortSignal,
    private readonly wordTimestamps: Promise<boolean>,
  ) {}

  /** Cancels the partial pass in flight, if any. */
  cancelPartial() {
    this.partialAbort?.abort();
  }

  /** The speaker resumed: the early pass is not the final but a partial, cancelled as partials are. */
  demoteEarly(utterance: Utterance, early: NonNullable<Utterance["early"]>) {
    this.partialAbort = early.abort;
    utterance.early = null;
  }

  async runPartial(utterance: Utterance) {
    const partialAbort = new AbortController();
    this.partialAbort = partialAbort;
    try {
      const signal = AbortSignal.any([this.signal, partialAbort.signal]);
      const result = await this.transcriber.transcribe(joinChunks(utterance.chunks, utterance.length), false, false, signal);
      if (this.session.current() !== utterance) return; // ended meanwhile: its final is what counts
      this.sendPartial(utterance, result);
    } catch (error) {
      // A partial is best effort: a busy engine (429) just means no partial this time.
      if (!(error instanceof CancelledJobError) && !(error instanceof AppError && error.code === "rate_limited")) this.session.sendError(error);
    } finally {
      if (this.partialAbort === partialAbort) this.partialAbort = null;
    }
  }

  private sendPartial(utterance: Utterance, result: TranscribeResult) {
    this.transcriber.noteLanguage(result.languageCode);
    const words = wordsOfText(result.text);
    const { stable, unstable } = stabilisePartial(utterance.stableWords, utterance.previousWords, words);
    utterance.stableWords = stable;
    utterance.previousWords = words;
    this.session.emit({ type: "partial", utterance, stable, unstable });
  }

  /**
   * The final's pass over the utterance as it would end now (its trailing silence trimmed); the final
   * awaits it. If the speaker resumes instead, the pass was a pass over the utterance so far: a partial.
   */
  async startEarlyFinal(utterance: Utterance) {
    const length = utterance.length - this.session.trailingSilenceFrames() * FRAME_SAMPLES;
    const samples = joinChunks(utterance.chunks, length);
    const abort = new AbortController();
    const result = this.wordTimestamps
      .catch(() => false)
      .then((words) => this.transcriber.transcribe(samples, this.session.settings.words && words, true, AbortSignal.any([this.signal, abort.signal])));
    utterance.early = { length, result, abort };
    // A failure is the final's to handle (it then runs a pass of its own).
    const outcome = await result.catch(() => null);
    if (this.partialAbort === abort) this.partialAbort = null;
    if (outcome && this.session.settings.partials && this.session.current() === utterance && utterance.early?.result !== result) {
      this.sendPartial(utterance, outcome);
      utterance.sinceLastPartial = utterance.length - length; // the next partial waits for 1 s more than this pass saw
    }
  }

  async runFinal(utterance: Utterance) {
    const samples = joinChunks(utterance.chunks, utterance.length);
    // Nothing was added since the early pass started (the speaker did not resume): it is this final's pass.
    let early = utterance.early?.length === utterance.length ? utterance.early.result : null;
    for (let attempt = 0; ; attempt++) {
      try {
        const words = this.session.settings.words && (await this.wordTimestamps.catch(() => false));
        const result = await (early ?? this.transcriber.transcribe(samples, words, true));
        this.transcriber.noteLanguage(result.languageCode);
        this.session.emit({ type: "final", utterance, result });
        return;
      } catch (error) {
        if (early && !this.signal.aborted) {
          early = null; // the early pass failed (e.g. a busy engine): the final runs its own
          continue;
        }
        if (error instanceof CancelledJobError) return;
        if (error instanceof AppError && error.code === "rate_limited" && attempt < 20) {
          await new Promise((resolve) => setTimeout(resolve, 250)); // the engine is busy: a final is never dropped for that
          continue;
        }
        this.session.emit({ type: "error", error, utterance });
        return;
      }
    }
  }
}
