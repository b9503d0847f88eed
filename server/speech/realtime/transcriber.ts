/**
 * The engine as a real-time session asks it: one pass over some samples with the session's settings
 * now, and the language (the settings', else the one the first pass detected).
 */
import type { TranscribeResult } from "../engine-protocol";
import type { SpeechService } from "../service";
import type { SessionSettings } from "./protocol";

export class SessionTranscriber {
  private language: string | undefined;

  /** `settings`: the session's own object (a protocol may change it); `onLanguage`: the language was detected. */
  constructor(
    private readonly service: SpeechService,
    private readonly settings: SessionSettings,
    private readonly signal: AbortSignal,
    private readonly onLanguage: (code: string) => void,
  ) {
    this.language = settings.language;
  }

  /** The language of the passes from now on (the client's; undefined: detected again). */
  setLanguage(language: string | undefined) {
    this.language = language;
  }

  /** A pass's detected language: the session's from then on, if it had none. */
  noteLanguage(code: string) {
    if (this.language) return;
    this.language = code;
    this.onLanguage(code);
  }

  transcribe(samples: Float32Array, wordTimestamps: boolean, timestamps: boolean, signal = this.signal): Promise<TranscribeResult> {
    return this.service.pool.transcribe(
      {
        model: this.settings.model,
        source: this.service.config.modelSources[this.settings.model],
        samples,
        task: this.settings.task,
        language: this.language,
        prompt: this.settings.prompt,
        temperature: this.settings.temperature,
        wordTimestamps,
        timestamps,
        logprobs: this.settings.logprobs,
      },
      signal,
      undefined,
      "interactive",
    );
  }
}
