/**
 * What the speech service says it can do, through HTTP and the real `openai` client: GET /v1/models lists
 * only the models whose files are all there and readable (nothing loaded to find out), a model that
 * cannot load is 404 model_not_found with the reason, GET /v1/health stays 200 as the contract declares,
 * and GET /v1/health/ready answers a load balancer 503 with a reason when no model can serve, 200 when
 * one can. The model folders are made by the test (every file the dtype needs; the engine never runs).
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import fc from "fast-check";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SPEECH_MODEL_IDS } from "../server/speech/config";
import { requiredModelFiles } from "../server/speech/model-install";
import { openaiFailure as failure } from "./support/openai-failure";
import { type RunningSpeechServer, startSpeechServer, testSpeechConfig } from "./support/speech-server";

const KEY = "readiness-test-key";
const authenticate = async (key: string) => (key === KEY ? "readiness-test" : null);
const DTYPE_FILES = requiredModelFiles(testSpeechConfig().dtype);

/** A model folder as a copy may leave it: each needed file present, absent, or a folder of that name. */
type FileState = "file" | "absent" | "folder";
function writeModelFolder(folder: string, states: FileState[] = DTYPE_FILES.map(() => "file")) {
  fs.rmSync(folder, { recursive: true, force: true });
  fs.mkdirSync(folder, { recursive: true });
  DTYPE_FILES.forEach((file, index) => {
    const target = path.join(folder, file);
    fs.mkdirSync(path.dirname(target), { recursive: true });
    if (states[index] === "file") fs.writeFileSync(target, "{}");
    else if (states[index] === "folder") fs.mkdirSync(target);
  });
}

interface ReadyBody {
  status: string;
  service: string;
  models: string[];
  reason?: string;
}

describe("speech readiness and the model list", () => {
  let modelsDir: string;
  const servers: RunningSpeechServer[] = [];

  /** A server on the test's models folder, every model in a folder of its own (SPEECH_MODEL_<ID>=<id>-folder). */
  async function serverWith(settings: Record<string, string> = {}) {
    const sources = Object.fromEntries(SPEECH_MODEL_IDS.map((id) => [`SPEECH_MODEL_${id.toUpperCase()}`, `${id}-folder`]));
    const config = testSpeechConfig({ MODELS_DIR: modelsDir, ALLOW_REMOTE_MODELS: "false", SPEECH_DEFAULT_MODEL: "base", ...sources, ...settings });
    const server = await startSpeechServer(config, { authenticate });
    servers.push(server);
    const client = new OpenAI({ apiKey: KEY, baseURL: server.baseURL, maxRetries: 0 });
    const ready = async (key?: string) => {
      const response = await fetch(`${server.baseURL}/health/ready`, key ? { headers: { authorization: `Bearer ${key}` } } : {});
      return { status: response.status, type: response.headers.get("content-type"), body: (await response.json()) as ReadyBody };
    };
    return { server, client, ready };
  }

  beforeAll(() => {
    modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-readiness-"));
  });
  afterAll(async () => {
    for (const server of servers) await server.close();
    fs.rmSync(modelsDir, { recursive: true, force: true });
  });

  it("with no model installed: /v1/models is empty, a model is 404 with the reason, health 200 unhealthy, ready 503 with a reason", async () => {
    const { server, client, ready } = await serverWith();
    expect((await client.models.list()).data).toEqual([]);
    const missing = await failure(client.models.retrieve("base"));
    expect(missing).toMatchObject({ status: 404, type: "invalid_request_error", code: "model_not_found", param: "model" });
    expect(missing.message).toContain("'base' is not available on this server");
    expect(missing.message).toContain("ALLOW_REMOTE_MODELS=false");
    expect(missing.message).toContain("No model is available here.");

    // The contract's health: 200 even when unhealthy.
    const health = await fetch(`${server.baseURL}/health`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "unhealthy", service: "markbook-speech" });

    const anonymous = await ready();
    expect(anonymous.status).toBe(503);
    expect(anonymous.type).toBe("application/json");
    expect(anonymous.body).toEqual({ status: "unavailable", service: "markbook-speech", models: [], reason: "No speech model can be loaded on this server." });
    // With a key: the operator's reason, which names the folder and the setting.
    const detailed = await ready(KEY);
    expect(detailed.status).toBe(503);
    expect(detailed.body.reason).toContain(modelsDir);
    expect(detailed.body.reason).toContain("SPEECH_DEFAULT_MODEL");
    // A wrong key is not refused (a load balancer has none): it gets the public answer.
    expect((await ready("mk_wrong")).body).toEqual(anonymous.body);
    const head = await fetch(`${server.baseURL}/health/ready`, { method: "HEAD" });
    expect(head.status).toBe(503);
  });

  it("with one model installed (not the default): ready 200, and only that model is listed and retrieved", async () => {
    writeModelFolder(path.join(modelsDir, "tiny-folder"));
    try {
      const { client, ready } = await serverWith();
      expect((await client.models.list()).data.map((model) => model.id)).toEqual(["tiny"]);
      expect(await client.models.retrieve("tiny")).toMatchObject({ id: "tiny", object: "model", root: "tiny-folder" });
      const base = await failure(client.models.retrieve("base"));
      expect(base).toMatchObject({ status: 404, code: "model_not_found" });
      expect(base.message).toContain("Models available here: tiny.");
      const answer = await ready();
      expect(answer).toMatchObject({ status: 200, body: { status: "ready", service: "markbook-speech", models: ["tiny"] } });
      expect(answer.body.reason).toBeUndefined();
    } finally {
      fs.rmSync(path.join(modelsDir, "tiny-folder"), { recursive: true, force: true });
    }
  });

  it("lists exactly the models whose folders hold every file, whatever a copy left behind (missing files, folders named as files)", async () => {
    const { client, ready } = await serverWith();
    const folderStates = fc.array(fc.constantFrom<FileState>("file", "file", "file", "absent", "folder"), { minLength: DTYPE_FILES.length, maxLength: DTYPE_FILES.length });
    await fc.assert(
      fc.asyncProperty(fc.tuple(...SPEECH_MODEL_IDS.map(() => fc.option(folderStates, { nil: null }))), async (folders) => {
        SPEECH_MODEL_IDS.forEach((id, index) => {
          const states = folders[index];
          const folder = path.join(modelsDir, `${id}-folder`);
          if (states) writeModelFolder(folder, states);
          else fs.rmSync(folder, { recursive: true, force: true });
        });
        const expected = SPEECH_MODEL_IDS.filter((_, index) => folders[index]?.every((state) => state === "file"));
        expect((await client.models.list()).data.map((model) => model.id)).toEqual(expected);
        const answer = await ready();
        expect(answer.status).toBe(expected.length > 0 ? 200 : 503);
        expect(answer.body.models).toEqual(expected);
        for (const id of SPEECH_MODEL_IDS.filter((model) => !expected.includes(model))) {
          expect(await failure(client.models.retrieve(id))).toMatchObject({ status: 404, code: "model_not_found" });
        }
      }),
      { numRuns: 30 },
    );
  });
});
