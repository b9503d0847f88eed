/**
 * A live socket's transcriptions are not starved by a long file (server/speech/engine-pool.ts,
 * engine-worker.ts): with the one worker busy on an uploaded file, an interactive job starts beside it at
 * once and the file pauses until it is answered; jobs of one kind wait for each other, in order. Real
 * worker, real engine.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { JobPriority } from "../server/speech/engine-pool";
import { type SpeechService, createSpeechService } from "../server/speech/service";
import { repeatedSpeechSamples } from "./support/speech-audio";
import { TEST_MODEL_FOLDER, testModelAvailable, testSpeechConfig } from "./support/speech-server";
import { speechTimeout } from "./support/busy-machine";

describe.skipIf(!testModelAvailable)("the speech engine's priorities", () => {
  let service: SpeechService | null = null;
  afterEach(async () => {
    await service?.close();
    service = null;
  });

  /** Starts a transcription and records when it settles, in order. */
  const start = (pool: SpeechService["pool"], seconds: number, priority: JobPriority, finished: string[], name: string) =>
    pool
      .transcribe(
        { model: "tiny", source: TEST_MODEL_FOLDER, samples: repeatedSpeechSamples(seconds), task: "transcribe", language: "en", temperature: 0, wordTimestamps: false },
        undefined,
        undefined,
        priority,
      )
      .then((result) => {
        finished.push(name);
        return result;
      });

  const waitFor = async (condition: () => boolean) => {
    while (!condition()) await new Promise((resolve) => setTimeout(resolve, 10));
  };

  it("an interactive job runs beside a long file at once and finishes first; a second file waits", { timeout: speechTimeout({ loads: 1, decodes: 8 }) }, async () => {
    service = createSpeechService(testSpeechConfig({ SPEECH_QUEUE_MAX: "8" }), { authenticate: async () => "test" });
    const { pool } = service;
    const finished: string[] = [];
    const file = start(pool, 150, "batch", finished, "file");
    await waitFor(() => pool.load.running === 1);
    const secondFile = start(pool, 2, "batch", finished, "second file");
    const dictation = start(pool, 2, "interactive", finished, "dictation");
    // The dictation started beside the file; the second file waits for the first.
    expect(pool.load).toEqual({ running: 2, queued: 1 });
    const [fileResult, dictationResult] = await Promise.all([file, dictation, secondFile]);
    expect(finished).toEqual(["dictation", "file", "second file"]);
    expect(fileResult.decodes).toBe(5); // 150 s: five windows, all decoded while the dictation ran beside them
    expect(dictationResult.text).toEqual(expect.any(String));
  });

  it("dictations wait for each other in order, files for each other, and the file pauses for each dictation", { timeout: speechTimeout({ loads: 1, decodes: 8 }) }, async () => {
    service = createSpeechService(testSpeechConfig({ SPEECH_QUEUE_MAX: "8" }), { authenticate: async () => "test" });
    const { pool } = service;
    const finished: string[] = [];
    const file = start(pool, 150, "batch", finished, "file");
    const first = start(pool, 30, "interactive", finished, "first dictation");
    await waitFor(() => pool.load.running === 2);
    // Both kinds are running: everything else waits.
    const laterFile = start(pool, 2, "batch", finished, "later file");
    const second = start(pool, 2, "interactive", finished, "second dictation");
    const third = start(pool, 2, "interactive", finished, "third dictation");
    expect(pool.load).toEqual({ running: 2, queued: 3 });
    await Promise.all([file, first, laterFile, second, third]);
    expect(finished).toEqual(["first dictation", "second dictation", "third dictation", "file", "later file"]);
  });
});
