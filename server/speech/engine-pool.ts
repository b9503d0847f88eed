/**
 * The inference pool: worker threads behind a bounded queue. A full queue answers 429 at once (never an
 * unbounded pile of audio in memory); a client that goes away cancels its job, queued or running.
 *
 * Two kinds of job: `interactive` (a live socket's partials and finals, someone is waiting on each word)
 * and `batch` (an uploaded file, possibly an hour long). A worker runs at most one job of each kind at
 * once, and its batch job pauses before its next encoder pass or decoder step while the interactive one
 * runs (engine-worker.ts): a dictation's partials keep coming while a long file is transcribed, instead
 * of waiting for all of it; the file goes on when the dictation is answered.
 */
import { Worker } from "node:worker_threads";
import { AppError } from "../errors";
import { logger } from "../logger";
import type { SpeechModelId } from "./config";
import type { EngineSettings, FromWorker, ToWorker, TranscribeRequest, TranscribeResult } from "./engine-protocol";
import type { Segment } from "./formats";
import { engineWorkerEntry } from "./worker-entry";


/** Who waits on a job: a live socket (interactive) or a whole upload (batch). */
export type JobPriority = "interactive" | "batch";

interface Job {
  id: number;
  priority: JobPriority;
  message: ToWorker;
  transfer: ArrayBuffer[];
  resolve(value: unknown): void;
  reject(error: unknown): void;
  signal?: AbortSignal;
  onAbort?: () => void;
  /** A transcription's decoded windows, as the worker reports them (stream=true). */
  onWindow?: (segments: Segment[]) => void;
}

interface Slot {
  worker: Worker;
  /** At most one job of each priority. */
  jobs: Job[];
}

/** Whether the worker can start this job now: it runs none of the job's priority. */
const canTake = (slot: Slot, job: Pick<Job, "priority">) => !slot.jobs.some((running) => running.priority === job.priority);

export class CancelledJobError extends Error {
  constructor() {
    super("The request was cancelled.");
    this.name = "CancelledJobError";
  }
}

export class EnginePool {
  private readonly slots: Slot[] = [];
  private readonly queue: Job[] = [];
  private nextId = 1;
  private closed = false;
  /** Why the engine cannot run, when a worker failed to start (shown by /v1/health). */
  private fatal: string | null = null;
  private readonly wordTimestampSupport = new Map<string, Promise<boolean>>();
  /** Finished jobs by outcome (benchmarks, tests, and the log at shutdown). */
  readonly stats = { completed: 0, cancelled: 0, failed: 0, modelLoads: 0, modelUnloads: 0, decodes: 0, windowsReported: 0 };
  /** Models loaded in the workers now (one entry per worker and model). */
  readonly loadedModels: string[] = [];

  constructor(
    private readonly settings: EngineSettings,
    private readonly size: number,
    private readonly queueMax: number,
    /** Decoded audio that running and waiting jobs may hold together (the pool's memory bound). */
    private readonly maxAudioBytes = Number.POSITIVE_INFINITY,
  ) {}

  /** Bytes of decoded audio held by running and waiting jobs. */
  private audioBytes = 0;

  get health(): { ok: true } | { ok: false; reason: string } {
    return this.fatal ? { ok: false, reason: this.fatal } : { ok: true };
  }

  /** Jobs running plus waiting. */
  get load() {
    return { running: this.slots.reduce((sum, slot) => sum + slot.jobs.length, 0), queued: this.queue.length };
  }

  /** `onWindow` gets each decoded window's segments while the job runs, before it resolves. */
  transcribe(
    request: TranscribeRequest,
    signal?: AbortSignal,
    onWindow?: (segments: Segment[]) => void,
    priority: JobPriority = "batch",
  ): Promise<TranscribeResult> {
    const bytes = request.samples.byteLength;
    // One job is always admitted when the pool holds no audio, so that a long file is never refused forever.
    if (this.audioBytes > 0 && this.audioBytes + bytes > this.maxAudioBytes) {
      return Promise.reject(
        Object.assign(new AppError("rate_limited", "The speech engine is busy: too much audio is waiting. Retry shortly.", undefined, "rate_limit_exceeded"), {
          retryAfterSeconds: 1,
        }),
      );
    }
    this.audioBytes += bytes;
    const job = this.enqueue<TranscribeResult>(
      (id) => ({ type: "transcribe", id, request: { ...request, progress: onWindow !== undefined, priority } }),
      [request.samples.buffer as ArrayBuffer],
      priority,
      signal,
      onWindow,
    );
    const release = () => {
      this.audioBytes -= bytes;
    };
    job.then(release, release);
    return job;
  }

  /** Whether the model can give word timestamps (loads it; the answer is kept). */
  supportsWordTimestamps(model: SpeechModelId, source: string, signal?: AbortSignal): Promise<boolean> {
    let answer = this.wordTimestampSupport.get(source);
    if (!answer) {
      // Interactive: a live socket asks before its first transcription, and the answer is quick.
      answer = this.enqueue<boolean>((id) => ({ type: "probe", id, model, source }), [], "interactive", signal);
      this.wordTimestampSupport.set(source, answer);
      answer.catch(() => this.wordTimestampSupport.delete(source));
    }
    return answer;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const job of this.queue.splice(0)) job.reject(new AppError("unavailable", "The speech service is shutting down."));
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  private enqueue<T>(
    makeMessage: (id: number) => ToWorker,
    transfer: ArrayBuffer[],
    priority: JobPriority,
    signal?: AbortSignal,
    onWindow?: (segments: Segment[]) => void,
  ): Promise<T> {
    if (this.closed) return Promise.reject(new AppError("unavailable", "The speech service is shutting down."));
    if (signal?.aborted) return Promise.reject(new CancelledJobError());
    this.ensureWorkers();
    // An idle worker first, else one running only the other kind of job.
    const free = this.slots.find((slot) => slot.jobs.length === 0) ?? this.slots.find((slot) => canTake(slot, { priority }));
    if (!free && this.queue.length >= this.queueMax) {
      return Promise.reject(
        Object.assign(new AppError("rate_limited", "The speech engine is busy: too many requests are waiting. Retry shortly.", undefined, "rate_limit_exceeded"), {
          retryAfterSeconds: 1,
        }),
      );
    }
    return new Promise<T>((resolve, reject) => {
      const id = this.nextId++;
      const job: Job = { id, priority, message: makeMessage(id), transfer, resolve, reject, signal, onWindow };
      if (signal) {
        job.onAbort = () => this.cancel(job);
        signal.addEventListener("abort", job.onAbort, { once: true });
      }
      if (free) this.start(free, job);
      else if (priority === "interactive") {
        // Ahead of every batch job, behind the interactive ones already waiting.
        const firstBatch = this.queue.findIndex((waiting) => waiting.priority === "batch");
        this.queue.splice(firstBatch < 0 ? this.queue.length : firstBatch, 0, job);
      } else this.queue.push(job);
    });
  }

  private cancel(job: Job) {
    const queued = this.queue.indexOf(job);
    if (queued >= 0) {
      this.queue.splice(queued, 1);
      job.reject(new CancelledJobError());
      return;
    }
    const slot = this.slots.find((candidate) => candidate.jobs.includes(job));
    slot?.worker.postMessage({ type: "cancel", id: job.id } satisfies ToWorker);
  }

  private start(slot: Slot, job: Job) {
    slot.jobs.push(job);
    slot.worker.postMessage(job.message, job.transfer);
  }

  private finish(slot: Slot, id: number, settle: (job: Job) => void) {
    const job = slot.jobs.find((running) => running.id === id);
    if (job) {
      slot.jobs.splice(slot.jobs.indexOf(job), 1);
      if (job.signal && job.onAbort) job.signal.removeEventListener("abort", job.onAbort);
      settle(job);
    }
    this.startWaiting(slot);
  }

  /** Starts on this worker the queued jobs it can take (the queue holds interactive jobs first). */
  private startWaiting(slot: Slot) {
    for (let index = 0; index < this.queue.length; ) {
      const next = this.queue[index]!;
      if (!canTake(slot, next)) {
        index++;
        continue;
      }
      this.queue.splice(index, 1);
      this.start(slot, next);
    }
  }

  private ensureWorkers() {
    while (this.slots.length < this.size) this.slots.push(this.spawn());
  }

  private spawn(): Slot {
    const worker = new Worker(engineWorkerEntry(), { workerData: { settings: this.settings }, name: "markbook-speech" });
    const slot: Slot = { worker, jobs: [] };
    worker.unref();
    worker.on("message", (message: FromWorker) => {
      switch (message.type) {
        case "ready":
          this.fatal = null;
          return;
        case "log":
          logger[message.level](message.message);
          return;
        case "model":
          if (message.state === "loaded") {
            this.stats.modelLoads++;
            this.loadedModels.push(message.source);
          } else {
            this.stats.modelUnloads++;
            const index = this.loadedModels.indexOf(message.source);
            if (index >= 0) this.loadedModels.splice(index, 1);
          }
          return;
        case "window": {
          const job = slot.jobs.find((running) => running.id === message.id);
          if (!job) return;
          this.stats.windowsReported++;
          try {
            job.onWindow?.(message.segments);
          } catch (error) {
            // A listener's failure must not throw out of the worker's message event (it would end the process).
            logger.error("speech: a window listener failed; the job is cancelled", error);
            this.cancel(job);
          }
          return;
        }
        case "result":
          this.stats.completed++;
          this.stats.decodes += message.result.decodes;
          this.finish(slot, message.id, (job) => job.resolve(message.result));
          return;
        case "probed":
          this.finish(slot, message.id, (job) => job.resolve(message.wordTimestamps));
          return;
        case "error": {
          const { code, message: text, param, openaiCode } = message.error;
          if (code === "cancelled") this.stats.cancelled++;
          else this.stats.failed++;
          this.finish(slot, message.id, (job) =>
            job.reject(
              code === "cancelled"
                ? new CancelledJobError()
                : new AppError(code === "invalid" ? "invalid" : "internal", text, param, openaiCode),
            ),
          );
          return;
        }
      }
    });
    worker.on("error", (error) => {
      logger.error("speech worker crashed", error);
      this.fatal = `speech worker crashed: ${error.message}`;
    });
    worker.on("exit", (code) => {
      const index = this.slots.indexOf(slot);
      if (index >= 0) this.slots.splice(index, 1);
      for (const job of slot.jobs.splice(0)) job.reject(new AppError("internal", "The speech engine stopped while working on this request."));
      if (!this.closed && code !== 0) {
        this.fatal ??= `speech worker exited with code ${code}`;
        // Keep serving: a fresh worker takes the waiting jobs.
        if (this.queue.length > 0) {
          this.ensureWorkers();
          for (const free of this.slots) this.startWaiting(free);
        }
      }
    });
    return slot;
  }
}
