/**
 * Speech on an install whose models folder lacks the model, with the real engine and the real `openai`
 * client: health says which models can be used, and a request for one that cannot be loaded gets 400
 * model_not_found naming the model and the settings to change, never a 500. The hub is a closed local
 * port (a machine without internet) or a local server answering 502 (a proxy that blocks it), so the
 * outcome never depends on this machine's network.
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Database, useDatabase } from "../server/db/client";
import { speechTimeout } from "./support/busy-machine";
import { freePort } from "./support/free-port";
import { openaiFailure as failure } from "./support/openai-failure";
import { createTestDatabase } from "./support/database";
import { readAudioFixture } from "./support/speech-audio";
import { type RunningSpeechServer, TEST_MODEL_FOLDER, startSpeechServer, testModelAvailable, testModelsDir, testSpeechConfig } from "./support/speech-server";

const speechFile = () => toFile(readAudioFixture("speech.wav"), "speech.wav", { type: "audio/wav" });

/** A hub behind a proxy that blocks it: every request answers 502. */
async function blockingProxy(): Promise<{ url: string; requests: () => number; close(): Promise<void> }> {
  let requests = 0;
  const server = http.createServer((request, response) => {
    requests++;
    response.writeHead(502, { "content-type": "text/html" }).end("<h1>Bad gateway</h1>");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests: () => requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface HealthBody {
  status: string;
  reason?: string;
  default_model: string;
  models: Record<string, { status: string; source: string; from: string | null; reason?: string }>;
}
const healthOf = async (server: RunningSpeechServer) =>
  (await (await fetch(`${server.baseURL}/health`, { headers: { authorization: "Bearer test-key" } })).json()) as HealthBody;

describe.skipIf(!testModelAvailable)("speech with a models folder that lacks the model", () => {
  let database: Database;
  let modelsDir: string;
  const servers: RunningSpeechServer[] = [];

  /** A server on the temporary models folder: tiny is there, base (the default) is not. */
  async function serverWith(settings: Record<string, string>) {
    const config = testSpeechConfig({ MODELS_DIR: modelsDir, SPEECH_MODEL_BASE: "onnx-community/whisper-base", SPEECH_DEFAULT_MODEL: "base", ...settings });
    const server = await startSpeechServer(config, { authenticate: async () => "test-key" });
    servers.push(server);
    return { server, client: new OpenAI({ apiKey: "test-key", baseURL: server.baseURL, maxRetries: 0, timeout: 120_000 }) };
  }

  beforeAll(async () => {
    database = await createTestDatabase("pglite"); // the rate limits are counted there
    useDatabase(database);
    modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-models-"));
    fs.symlinkSync(path.join(testModelsDir, TEST_MODEL_FOLDER), path.join(modelsDir, TEST_MODEL_FOLDER));
    // A folder with a configuration but no weights: a copy that stopped half way.
    fs.mkdirSync(path.join(modelsDir, "half-copied"));
    fs.copyFileSync(path.join(testModelsDir, TEST_MODEL_FOLDER, "config.json"), path.join(modelsDir, "half-copied", "config.json"));
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    await database?.close();
    fs.rmSync(modelsDir, { recursive: true, force: true });
  });

  describe("without internet (downloads on, the hub out of reach)", () => {
    let server: RunningSpeechServer;
    let client: OpenAI;
    let hubUrl: string;
    beforeAll(async () => {
      hubUrl = `http://127.0.0.1:${await freePort()}`; // nothing listens there: a hub out of reach
      ({ server, client } = await serverWith({ ALLOW_REMOTE_MODELS: "true", HF_ENDPOINT: hubUrl }));
    });

    it("health is unhealthy, saying the default model cannot be loaded and which models can", async () => {
      const body = await healthOf(server);
      expect(body.status).toBe("unhealthy");
      expect(body.default_model).toBe("base");
      expect(body.reason).toContain("'base'");
      expect(body.models.tiny).toEqual({ status: "healthy", source: TEST_MODEL_FOLDER, from: "disk" });
      expect(body.models.base).toMatchObject({ status: "unhealthy", source: "onnx-community/whisper-base", from: null });
      expect(body.models.base!.reason).toContain(`${hubUrl} could not be reached`);
      // Without a key: the status, not the folders, hub and settings the reasons name.
      const anonymous = await (await fetch(`${server.baseURL}/health`)).text();
      expect(JSON.parse(anonymous)).toEqual({ status: "unhealthy", service: "markbook-speech" });
      expect(anonymous).not.toContain(modelsDir);
    });

    it(
      "a transcription with the default model is 400 model_not_found naming the model and the settings, through the real engine",
      async () => {
        for (const model of ["base", "whisper-1"]) {
          const result = await failure(client.audio.transcriptions.create({ file: await speechFile(), model }));
          expect(result).toMatchObject({ status: 400, type: "invalid_request_error", code: "model_not_found", param: "model" });
          for (const hint of ["'base'", "MODELS_DIR", modelsDir, "SPEECH_MODEL_BASE", `${hubUrl} could not be reached`, "HF_ENDPOINT"]) {
            expect(result.message ?? "").toContain(hint);
          }
        }
        const translation = await failure(client.audio.translations.create({ file: await speechFile(), model: "base" }));
        expect(translation).toMatchObject({ status: 400, code: "model_not_found" });
        expect(server.service.pool.stats.failed).toBeGreaterThanOrEqual(3); // the engine tried, and said why
      },
      speechTimeout({ decodes: 3 }),
    );
  });

  describe("behind a proxy that blocks the hub (502)", () => {
    let server: RunningSpeechServer;
    let client: OpenAI;
    let proxy: Awaited<ReturnType<typeof blockingProxy>>;
    beforeAll(async () => {
      proxy = await blockingProxy();
      ({ server, client } = await serverWith({ ALLOW_REMOTE_MODELS: "true", HF_ENDPOINT: proxy.url }));
    });
    afterAll(() => proxy?.close());

    it("health and the transcription both say the hub refused the download", async () => {
      const body = await healthOf(server);
      expect(body).toMatchObject({ status: "unhealthy", models: { base: { status: "unhealthy" } } });
      expect(body.models.base!.reason).toContain(`${proxy.url} refused the download (HTTP 502)`);

      const result = await failure(client.audio.transcriptions.create({ file: await speechFile(), model: "base" }));
      expect(result).toMatchObject({ status: 400, code: "model_not_found", param: "model" });
      expect(result.message).toContain(`${proxy.url} refused the download`);
      expect(proxy.requests()).toBeGreaterThan(1); // health's probe, then the engine's download
    }, speechTimeout({ decodes: 1 }));
  });

  describe("with downloads off", () => {
    let server: RunningSpeechServer;
    let client: OpenAI;
    beforeAll(async () => {
      ({ server, client } = await serverWith({ ALLOW_REMOTE_MODELS: "false", SPEECH_MODEL_SMALL: "half-copied" }));
    });

    it("health names ALLOW_REMOTE_MODELS for the missing model and the missing files of a half-copied one", async () => {
      const body = await healthOf(server);
      expect(body.status).toBe("unhealthy");
      expect(body.models.tiny!.status).toBe("healthy");
      expect(body.models.base!.reason).toContain("ALLOW_REMOTE_MODELS=false");
      expect(body.models.small).toMatchObject({ status: "unhealthy", source: "half-copied" });
      expect(body.models.small!.reason).toContain("onnx/encoder_model_quantized.onnx");
    });

    it("refuses the model before any work, and says which files a half-copied folder lacks", async () => {
      const missing = await failure(client.audio.transcriptions.create({ file: await speechFile(), model: "base" }));
      expect(missing).toMatchObject({ status: 400, code: "model_not_found", param: "model" });
      for (const hint of ["'base'", "MODELS_DIR", "SPEECH_MODEL_BASE", "ALLOW_REMOTE_MODELS=true"]) expect(missing.message).toContain(hint);

      const half = await failure(client.audio.transcriptions.create({ file: await speechFile(), model: "small" }));
      expect(half).toMatchObject({ status: 400, code: "model_not_found" });
      expect(half.message).toContain("onnx/encoder_model_quantized.onnx");
      expect(server.service.pool.stats).toMatchObject({ completed: 0, failed: 0 }); // refused before the engine
    });
  });

  it("is healthy when the default model is in the folder, though others are not", async () => {
    const { server } = await serverWith({ ALLOW_REMOTE_MODELS: "false", SPEECH_DEFAULT_MODEL: "tiny" });
    const body = await healthOf(server);
    expect(body).toMatchObject({ status: "healthy", default_model: "tiny", models: { tiny: { status: "healthy" }, base: { status: "unhealthy" } } });
    expect(body.reason).toBeUndefined();
  });
});
