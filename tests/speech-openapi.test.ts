/**
 * The /v1 part of GET /api/openapi.json held against the speech handler itself, over HTTP: the document
 * names every operation the handler routes, every form field it reads and only those, and for each
 * operation exactly the refusals this file makes the handler (or the socket handshake) answer, with the
 * documented status, type, code and headers. No model is loaded: every request here is answered before
 * the engine (an empty file is refused after its fields were read, so a 422 says the fields passed).
 */
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as getOpenApiDocument } from "../app/api/openapi.json/route";
import type { Database } from "../server/db/client";
import { SPEECH_HTTP_OPERATIONS, SPEECH_SOCKET_PATHS } from "../server/speech/http-operations";
import { SPEECH_MODEL_IDS } from "../server/speech/config";
import { requiredModelFiles } from "../server/speech/model-install";
import { OPENAI_REALTIME_PATH } from "../server/speech/realtime/openai";
import { PROMPT_MAX_CHARACTERS } from "../server/speech/options";
import { SpeechRateLimiter } from "../server/speech/rate-limits";
import { REALTIME_PATH } from "../server/speech/realtime/dictation";
import { createTestDatabase } from "./support/database";
import { wavBytes } from "./support/speech-audio";
import { type RunningSpeechServer, startSpeechServer, testSpeechConfig } from "./support/speech-server";

type Schema = Record<string, unknown> & { properties?: Record<string, Schema>; required?: string[]; enum?: unknown[]; description?: string };
type Response = {
  description: string;
  headers?: Record<string, unknown>;
  content?: Record<string, { schema: Schema; examples?: Record<string, { value: { error: { type: string; code: string } } }> }>;
};
type Operation = {
  tags: string[];
  security: Record<string, string[]>[];
  parameters?: { name: string; in: string }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, Response>;
};
type Document = {
  tags: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema>; securitySchemes: Record<string, Record<string, string>> };
};

const document = (): Promise<Document> => getOpenApiDocument().json();
const SPEECH_TAG = "Speech (OpenAI-compatible)";
const KEY = "mk_openapi-test-key";

/** Every /v1 operation of the document, as `METHOD /path`. */
const speechOperations = (doc: Document) =>
  Object.entries(doc.paths)
    .filter(([route]) => route.startsWith("/v1/"))
    .flatMap(([route, item]) => Object.entries(item).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${route}`, route, method, operation })));

const formOf = (operation: Operation) => operation.requestBody!.content["multipart/form-data"]!.schema;

/** The documented refusals of an operation: OpenAI code → status, type and the response's headers. */
/** GET /v1/health/ready's 503: the readiness answer (status, reason), a load balancer's, not a refusal in OpenAI's error shape. */
const isReadinessAnswer = (response: Operation["responses"][string]) =>
  response.content?.["application/json"]?.schema.$ref === "#/components/schemas/ReadinessResponse";

function documentedRefusals(operation: Operation) {
  const refusals = new Map<string, { status: number; type: string; headers: string[] }>();
  for (const [status, response] of Object.entries(operation.responses)) {
    if (Number(status) < 400 || isReadinessAnswer(response)) continue;
    for (const { value } of Object.values(response.content!["application/json"]!.examples!)) {
      refusals.set(value.error.code, { status: Number(status), type: value.error.type, headers: Object.keys(response.headers ?? {}).map((name) => name.toLowerCase()) });
    }
  }
  return refusals;
}

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: { error?: Record<string, unknown> } | null;
}

const answerOf = async (response: globalThis.Response): Promise<Answer> => {
  const text = await response.text();
  return { status: response.status, headers: Object.fromEntries(response.headers), body: text ? JSON.parse(text) : null };
};

/** A /v1/audio form: text fields (repeated names allowed), and the file unless it is null. */
function audioForm(fields: [string, string][], file: Blob | null = new Blob([])) {
  const form = new FormData();
  for (const [name, value] of fields) form.append(name, value);
  if (file) form.append("file", file, "audio.wav");
  return form;
}

/** A WebSocket handshake; a refusal is read as a plain HTTP answer, a 101 is closed at once. */
function handshake(server: RunningSpeechServer, socketPath: string, query: Record<string, string>, key: string | null = KEY): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request({
      host: "127.0.0.1",
      port: server.port,
      path: `${socketPath}?${new URLSearchParams(query)}`,
      headers: {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": crypto.randomBytes(16).toString("base64"),
        "sec-websocket-protocol": "realtime",
        ...(key ? { authorization: `Bearer ${key}` } : {}),
      },
    });
    request.on("upgrade", (response, socket) => {
      socket.destroy();
      resolve({ status: 101, headers: response.headers as Record<string, string>, body: null });
    });
    request.on("response", (response) => {
      let text = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (text += chunk));
      response.on("end", () => resolve({ status: response.statusCode!, headers: response.headers as Record<string, string>, body: JSON.parse(text) }));
    });
    request.on("error", reject);
    request.end();
  });
}

describe("the /v1 operations of /api/openapi.json against the speech handler", () => {
  let modelsDir: string;
  let database: Database;
  /** The handler with a fake installed `tiny` (never loaded), a 4 KiB file limit and no ffmpeg. */
  let server: RunningSpeechServer;
  /** The same, whose key store fails. */
  let brokenKeyStore: RunningSpeechServer;

  const call = async (method: string, route: string, { key = KEY, form }: { key?: string | null; form?: FormData } = {}, on = server) =>
    answerOf(await fetch(`http://127.0.0.1:${on.port}${route}`, { method, headers: key ? { authorization: `Bearer ${key}` } : {}, body: form }));

  /** Runs `work` with the server's per-key limits counted by `limiter`. */
  async function withRateLimiter<T>(limiter: SpeechRateLimiter, work: () => Promise<T>): Promise<T> {
    const previous = server.service.rateLimiter;
    server.service.rateLimiter = limiter;
    try {
      return await work();
    } finally {
      server.service.rateLimiter = previous;
    }
  }
  const databaseDown = () => new SpeechRateLimiter(() => Promise.reject(new Error("the database does not answer")), 60, 0);

  beforeAll(async () => {
    modelsDir = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-openapi-models-"));
    const overrides = {
      MODELS_DIR: modelsDir,
      SPEECH_MODEL_TINY: "fake-tiny",
      SPEECH_MODEL_BASE: "fake-tiny",
      SPEECH_MODEL_LARGE: "not-installed-large",
      SPEECH_DEFAULT_MODEL: "tiny",
      ALLOW_REMOTE_MODELS: "false",
      FFMPEG_PATH: "/nonexistent/ffmpeg",
      MAX_AUDIO_BYTES: "4096",
      SPEECH_RATE_LIMIT_RPM: "0",
      SPEECH_RATE_LIMIT_AUDIO_SECONDS: "0",
    };
    const config = testSpeechConfig(overrides);
    // A folder with every file the dtype needs counts as installed; nothing here reaches the engine.
    for (const file of requiredModelFiles(config.dtype)) {
      fs.mkdirSync(path.dirname(path.join(modelsDir, "fake-tiny", file)), { recursive: true });
      fs.writeFileSync(path.join(modelsDir, "fake-tiny", file), "{}");
    }
    server = await startSpeechServer(config, { authenticate: async (key) => (key === KEY ? "openapi-test" : null) });
    brokenKeyStore = await startSpeechServer(testSpeechConfig(overrides), {
      authenticate: () => Promise.reject(new Error("the key store does not answer")),
    });
    database = await createTestDatabase("pglite");
  });
  afterAll(async () => {
    await server?.close();
    await brokenKeyStore?.close();
    await database?.close();
    fs.rmSync(modelsDir, { recursive: true, force: true });
  });

  it("describes exactly the handler's operations and sockets, tagged, with the keys they take", async () => {
    const doc = await document();
    const described = speechOperations(doc).map(({ name }) => name);
    const routed = Object.values(SPEECH_HTTP_OPERATIONS).flatMap(({ methods, path: route }) => methods.map((method) => `${method} ${route}`));
    expect(described.sort()).toEqual([...routed, `GET ${REALTIME_PATH}`, `GET ${OPENAI_REALTIME_PATH}`].sort());
    expect(Object.values(SPEECH_SOCKET_PATHS).sort()).toEqual([REALTIME_PATH, OPENAI_REALTIME_PATH].sort());

    expect(doc.tags.map((tag) => tag.name)).toContain(SPEECH_TAG);
    expect(doc.components.securitySchemes.speechApiKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.speechApiKeyQuery).toMatchObject({ type: "apiKey", in: "query", name: "api_key" });
    for (const { name, route, operation } of speechOperations(doc)) {
      expect(operation.tags, name).toEqual([SPEECH_TAG]);
      const socket = Object.values(SPEECH_SOCKET_PATHS).includes(route as never);
      const security = route === "/v1/health" || route === "/v1/health/ready" ? [] : socket ? [{ speechApiKey: [] }, { speechApiKeyQuery: [] }] : [{ speechApiKey: [] }];
      expect(operation.security, name).toEqual(security);
      expect(Object.keys(operation.responses), name).toContain(socket ? "101" : "200");
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) < 400) continue;
        if (route === "/v1/health/ready") {
          expect(isReadinessAnswer(response), `${name} ${status}`).toBe(true);
          continue;
        }
        expect(response.content!["application/json"]!.schema, `${name} ${status}`).toEqual({ $ref: "#/components/schemas/OpenAIError" });
      }
    }
  });

  it("serves every documented HTTP operation, and answers 404 unknown_url to the methods the document leaves out", async () => {
    const doc = await document();
    for (const { name, route, method } of speechOperations(doc)) {
      const concrete = route.replace("{model}", "tiny");
      if (Object.values(SPEECH_SOCKET_PATHS).includes(route as never)) {
        // A plain request to a socket path: the handshake's 400, not a 404.
        expect((await call("GET", concrete)).body?.error, name).toMatchObject({ code: "invalid_parameters" });
        continue;
      }
      const answer = await call(method.toUpperCase(), concrete, { form: method === "post" ? audioForm([]) : undefined });
      expect(answer.status, name).toBe(method === "post" ? 422 : 200);
    }
    for (const [route, item] of Object.entries(doc.paths).filter(([route]) => route.startsWith("/v1/") && !Object.values(SPEECH_SOCKET_PATHS).includes(route as never))) {
      for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE"].filter((method) => !(method.toLowerCase() in item))) {
        const answer = await call(method, route.replace("{model}", "tiny"));
        expect(answer.status, `${method} ${route}`).toBe(404);
        if (method !== "HEAD") expect(answer.body?.error, `${method} ${route}`).toMatchObject({ code: "unknown_url" });
      }
    }
  });

  it("answers health, the model list and a model with the documented shapes", async () => {
    const { paths, components } = await document();
    const shapeOf = (operation: Operation) => {
      const ref = operation.responses["200"]!.content!["application/json"]!.schema.$ref as string;
      return components.schemas[ref.split("/").pop()!]!;
    };
    const matches = (body: Record<string, unknown>, schema: Schema, name: string) => {
      expect(Object.keys(schema.properties!), name).toEqual(expect.arrayContaining(Object.keys(body)));
      expect(Object.keys(body), name).toEqual(expect.arrayContaining(schema.required!));
    };
    const health = await call("GET", "/v1/health", { key: null });
    expect(health.status).toBe(200);
    matches(health.body as Record<string, unknown>, shapeOf(paths["/v1/health"]!.get!), "health");
    const detailedHealth = await call("GET", "/v1/health");
    expect(Object.keys(detailedHealth.body!).length).toBeGreaterThan(Object.keys(health.body!).length);
    matches(detailedHealth.body as Record<string, unknown>, shapeOf(paths["/v1/health"]!.get!), "health with a key");
    const list = (await call("GET", "/v1/models")).body as unknown as { data: Record<string, unknown>[] };
    matches(list, shapeOf(paths["/v1/models"]!.get!), "list");
    for (const model of list.data) matches(model, components.schemas.Model!, "listed model");
    matches((await call("GET", "/v1/models/base")).body!, shapeOf(paths["/v1/models/{model}"]!.get!), "model");
    // The path takes the five ids; the list holds those that can be loaded here (tiny and base: fake-tiny).
    expect(paths["/v1/models/{model}"]!.get!.parameters).toEqual([expect.objectContaining({ name: "model", in: "path", schema: expect.objectContaining({ enum: [...SPEECH_MODEL_IDS] }) })]);
    expect(list.data.map((model) => model.id)).toEqual(["tiny", "base"]);
  });

  describe("the audio form", () => {
    /** A value each documented field accepts and one it refuses; the accepted ones together make one coherent request. */
    const fieldValues: Record<string, { accepted: string; refused: string }> = {
      model: { accepted: "tiny", refused: "whisper-9" },
      language: { accepted: "en", refused: "english" },
      prompt: { accepted: "Markbook, rubric", refused: "x".repeat(PROMPT_MAX_CHARACTERS + 1) },
      response_format: { accepted: "verbose_json", refused: "yaml" },
      temperature: { accepted: "0.2", refused: "2" },
      "timestamp_granularities[]": { accepted: "segment", refused: "sentence" },
      stream: { accepted: "false", refused: "yes" },
      chunking_strategy: { accepted: "auto", refused: "manual" },
    };

    for (const route of ["/v1/audio/transcriptions", "/v1/audio/translations"]) {
      it(`${route}: each documented field is read and checked by the handler, and every field it reads is documented`, async () => {
        const form = formOf((await document()).paths[route]!.post!);
        const fields = Object.keys(form.properties!).filter((name) => name !== "file");
        const translation = route.endsWith("translations");
        expect(fields.sort()).toEqual(Object.keys(fieldValues).filter((name) => !(translation && name === "language")).sort());
        expect(form.required).toEqual(["file"]);
        const accepted = fields.map((name): [string, string] => [name, fieldValues[name]!.accepted]);

        // Every documented field at once, with an unknown one (ignored, as OpenAI does): the fields pass, the empty file does not.
        expect((await call("POST", route, { form: audioForm([...accepted, ["colour", "blue"]]) })).body?.error).toMatchObject({ code: "invalid_file_format", param: "file" });
        for (const name of fields) {
          const { accepted: good, refused } = fieldValues[name]!;
          const documented = form.properties![name]!.enum;
          if (documented) expect([documented.includes(good), documented.includes(refused)], name).toEqual([true, false]);
          const spoilt = accepted.map(([field, value]): [string, string] => [field, field === name ? refused : value]);
          const answer = await call("POST", route, { form: audioForm(spoilt) });
          expect([answer.status, answer.body?.error?.param], name).toEqual([400, name.replace("[]", "")]);
        }
        const withoutFile = await call("POST", route, { form: audioForm(accepted, null) });
        expect([withoutFile.status, withoutFile.body?.error?.param]).toEqual([400, "file"]);
        if (translation) {
          // Left out of the translation's form because the handler refuses it there.
          const language = await call("POST", route, { form: audioForm([["language", "en"]]) });
          expect([language.status, language.body?.error?.param]).toEqual([400, "language"]);
        }
      });
    }

    it("reads the other spellings its descriptions name: timestamp_granularities and chunking_strategy[…]", async () => {
      const form = formOf((await document()).paths["/v1/audio/transcriptions"]!.post!);
      expect(form.properties!["timestamp_granularities[]"]!.description).toContain("timestamp_granularities, repeated or comma-separated");
      expect(form.properties!.chunking_strategy!.description).toContain("chunking_strategy[type]");
      const plain = await call("POST", "/v1/audio/transcriptions", { form: audioForm([["response_format", "verbose_json"], ["timestamp_granularities", "segment,sentence"]]) });
      expect(plain.body?.error?.param).toBe("timestamp_granularities");
      const bracketed = await call("POST", "/v1/audio/transcriptions", { form: audioForm([["chunking_strategy[type]", "server_vad"], ["chunking_strategy[threshold]", "0.4"]]) });
      expect(bracketed.body?.error?.code).toBe("invalid_file_format");
      const spoilt = await call("POST", "/v1/audio/transcriptions", { form: audioForm([["chunking_strategy[type]", "server_vad"], ["chunking_strategy[threshold]", "7"]]) });
      expect(spoilt.body?.error?.param).toBe("chunking_strategy");
    });
  });

  it("lists for each operation exactly the refusals the handler answers, with their status, type, code and headers", async () => {
    const audio = (route: string) => ({
      invalid_parameters: () => call("POST", route, { form: audioForm([["temperature", "2"]]) }),
      model_not_found: () => call("POST", route, { form: audioForm([["model", "large"]]) }),
      invalid_api_key: () => call("POST", route, { key: "mk_wrong", form: audioForm([]) }),
      file_too_large: () => call("POST", route, { form: audioForm([], new Blob([new Uint8Array(8192)])) }),
      invalid_file_format: () => call("POST", route, { form: audioForm([], new Blob(["not audio at all"])) }),
      rate_limit_exceeded: () =>
        withRateLimiter(new SpeechRateLimiter(async () => database.db, 1, 0), async () => {
          await call("POST", route, { form: audioForm([]) });
          return call("POST", route, { form: audioForm([]) });
        }),
      // A well-formed WAV reaches the decoder, which cannot start.
      internal_error: () => call("POST", route, { form: audioForm([], new Blob([new Uint8Array(wavBytes(new Float32Array(800)))])) }),
      service_unavailable: () => withRateLimiter(databaseDown(), () => call("POST", route, { form: audioForm([]) })),
    });
    const socket = (route: string, invalid: Record<string, string>) => ({
      invalid_parameters: () => handshake(server, route, invalid),
      model_not_found: () => handshake(server, route, { model: "large" }),
      invalid_api_key: () => handshake(server, route, {}, null),
      rate_limit_exceeded: () =>
        withRateLimiter(new SpeechRateLimiter(async () => database.db, 1, 0), async () => {
          await call("POST", "/v1/audio/transcriptions", { form: audioForm([]) }); // the key's one request of the minute
          return handshake(server, route, {});
        }),
      internal_error: () => handshake(brokenKeyStore, route, {}),
      service_unavailable: () => withRateLimiter(databaseDown(), () => handshake(server, route, {})),
    });
    const scenarios: Record<string, Record<string, () => Promise<Answer>>> = {
      "GET /v1/health": {},
      "HEAD /v1/health": {},
      "GET /v1/health/ready": {},
      "HEAD /v1/health/ready": {},
      "GET /v1/models": { invalid_api_key: () => call("GET", "/v1/models", { key: null }), internal_error: () => call("GET", "/v1/models", {}, brokenKeyStore) },
      "GET /v1/models/{model}": {
        invalid_api_key: () => call("GET", "/v1/models/tiny", { key: "mk_wrong" }),
        model_not_found: () => call("GET", "/v1/models/whisper-9"),
        internal_error: () => call("GET", "/v1/models/tiny", {}, brokenKeyStore),
      },
      "POST /v1/audio/transcriptions": audio("/v1/audio/transcriptions"),
      "POST /v1/audio/translations": audio("/v1/audio/translations"),
      [`GET ${REALTIME_PATH}`]: socket(REALTIME_PATH, { language: "xx" }),
      [`GET ${OPENAI_REALTIME_PATH}`]: socket(OPENAI_REALTIME_PATH, { intent: "conversation" }),
    };

    const doc = await document();
    expect(Object.keys(scenarios).sort()).toEqual(speechOperations(doc).map(({ name }) => name).sort());
    for (const { name, operation } of speechOperations(doc)) {
      const documented = documentedRefusals(operation);
      expect([...documented.keys()].sort(), name).toEqual(Object.keys(scenarios[name]!).sort());
      for (const [code, provoke] of Object.entries(scenarios[name]!)) {
        const { status, type, headers } = documented.get(code)!;
        const answer = await provoke();
        const what = `${name} ${code}`;
        expect(answer.status, what).toBe(status);
        expect(answer.body?.error, what).toEqual({ message: expect.any(String), type, code, param: answer.body?.error?.param ?? null });
        if (headers.includes("retry-after")) expect(Number(answer.headers["retry-after"]), what).toBeGreaterThanOrEqual(1);
        const rateLimitHeaders = Object.keys(answer.headers).filter((header) => header.startsWith("x-ratelimit-"));
        expect(headers, what).toEqual(expect.arrayContaining(rateLimitHeaders));
        if (code === "rate_limit_exceeded" && name.startsWith("POST")) expect(rateLimitHeaders, what).not.toEqual([]);
      }
    }
  });
});
