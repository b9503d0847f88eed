/**
 * A session's audio on its way in: samples of any length made into 20 ms frames, and each frame handed
 * on once its audio is counted against the key's budget, in order with the client's commits and clears
 * between them.
 */
import { SAMPLE_RATE } from "../audio";

export const FRAME_SAMPLES = SAMPLE_RATE / 50; // 20 ms

/**
 * A session counts its audio against the key's budget (in the database) before processing it, this much
 * at a time: one take per second of audio, and the frames of that second wait for nothing. A session is
 * thus charged its audio rounded up to the whole second.
 */
const AUDIO_TAKE_SAMPLES = SAMPLE_RATE;

/** What the intake asks of its session. */
export interface IntakeSession {
  /** The session is ending: no frame is handed on any more. */
  ending(): boolean;
  closed(): boolean;
  /** Takes seconds of audio from the key's budget; rejects when it is refused. */
  takeAudio(seconds: number): Promise<unknown>;
  /** A counted frame, in the order received. */
  onFrame(frame: Float32Array): void;
  /** The client ended the session and every frame received before is processed. */
  onEnd(): void;
  /** The budget refused the audio: none of the waiting audio is processed. */
  onRefused(error: unknown): void;
  /** The audio waiting for its count is over the bound: it is dropped. */
  onOverflow(): void;
  /** An error of the server's own while processing. */
  fail(error: unknown): void;
}

export class AudioIntake {
  private frame = new Float32Array(FRAME_SAMPLES);
  private frameFill = 0;
  /**
   * Complete frames waiting for their audio to be counted against the key's budget, and the client's
   * commits and clears between them: each runs once the audio sent before it is processed.
   */
  private readonly uncounted: (Float32Array | (() => void))[] = [];
  /** Samples counted against the budget and not yet processed. */
  private countedSamples = 0;
  private counting = false;
  /** The client ended the session while frames were still being counted: end once they are processed. */
  private endRequested = false;

  /** `maxWaitingSamples`: the audio that may wait for its count (the database is slow) before the session overflows. */
  constructor(
    private readonly session: IntakeSession,
    private readonly maxWaitingSamples: number,
  ) {}

  /** The client has ended the session: nothing more is taken from it. */
  get ended() {
    return this.endRequested;
  }

  /** The samples of the frame not yet full (the session's end flushes them into its last utterance). */
  get partialFrame(): Float32Array | null {
    return this.frameFill > 0 ? this.frame.slice(0, this.frameFill) : null;
  }

  /** Drops the samples of the frame not yet full (the client cleared the buffer). */
  dropPartialFrame() {
    this.frameFill = 0;
  }

  /** The client's end: once the audio received before it is processed (at once if none waits). */
  end() {
    if (this.uncounted.length > 0) this.endRequested = true;
    else this.session.onEnd();
  }

  /** Runs `control` after the audio received before it; the samples of a frame not yet full go first. */
  enqueueControl(control: () => void) {
    if (this.frameFill > 0) {
      this.uncounted.push(this.frame.slice(0, this.frameFill));
      this.frameFill = 0;
    }
    this.uncounted.push(control);
    this.processCountedFrames();
  }

  /** 16 kHz mono samples in −1…1, any length. */
  acceptAudio(samples: Float32Array) {
    for (let i = 0; i < samples.length; i++) {
      this.frame[this.frameFill++] = samples[i]!;
      if (this.frameFill === FRAME_SAMPLES) {
        this.uncounted.push(this.frame);
        this.frame = new Float32Array(FRAME_SAMPLES);
        this.frameFill = 0;
      }
    }
    // Audio waiting for its count (the database is slow) is held too: the same bound.
    if (this.uncounted.length * FRAME_SAMPLES > this.maxWaitingSamples) {
      this.uncounted.length = 0;
      this.session.onOverflow();
      return;
    }
    this.processCountedFrames();
  }

  /** Processes the frames whose audio is counted (and the controls between them), in order; asks for the next ones to be counted. */
  private processCountedFrames() {
    while (this.uncounted.length > 0 && !this.session.ending()) {
      const next = this.uncounted[0]!;
      if (typeof next === "function") {
        this.uncounted.shift();
        next();
        continue;
      }
      if (this.countedSamples < next.length) {
        this.countAudio();
        return;
      }
      this.countedSamples -= next.length;
      this.uncounted.shift();
      this.session.onFrame(next);
    }
    if (this.endRequested && this.uncounted.length === 0) this.session.onEnd();
  }

  /**
   * Takes the next second of audio from the key's budget, then processes the frames it covers.
   * Refused, the session ends with the error: the audio taken so far is all it transcribes.
   */
  private countAudio() {
    if (this.counting) return;
    this.counting = true;
    this.session.takeAudio(AUDIO_TAKE_SAMPLES / SAMPLE_RATE).then(
      () => {
        this.counting = false;
        this.countedSamples += AUDIO_TAKE_SAMPLES;
        if (this.session.closed()) return;
        try {
          this.processCountedFrames();
        } catch (error) {
          this.session.fail(error);
        }
      },
      (error: unknown) => {
        this.counting = false;
        this.uncounted.length = 0;
        this.session.onRefused(error);
      },
    );
  }
}
