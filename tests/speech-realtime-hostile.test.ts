/**
 * /v1/websocket against careless and hostile clients (issue 14, item 3): every frame either works or
 * gets the protocol's `error` message, every session is released on every way out, health tells what
 * the socket can do, and handshake options go through the HTTP endpoints' schemas.
 */
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RealtimeRefusal, type RealtimeSession, connectRealtime } from "./support/realtime-client";
import { requiredModelFiles } from "../server/speech/model-install";
import { type RunningSpeechServer, startSpeechServer, testModelAvailable, testSpeechConfig } from "./support/speech-server";

type Session = RealtimeSession;
type Refusal = RealtimeRefusal;

const KEY = "mk_test_hostile";
/** No database: the soak opens hundreds of sessions, and keys are not what this file tests. */
const authenticate = async (key: string) => (key === KEY ? "hostile-key" : null);

async function open(url: string): Promise<Session> {
  const session = await connectRealtime(url);
  if (!("ws" in session)) throw new Error(`refused: ${JSON.stringify(session)}`);
  return session;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits (generously: the machine is shared) until `check` holds. */
async function eventually(check: () => boolean | Promise<boolean>, what: string, ms = 30_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(20);
  }
}

async function health(server: RunningSpeechServer) {
  return (await (await fetch(`${server.baseURL}/health`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
    status: string;
    realtime: { status: string; sessions: number; max_sessions: number; reason?: string };
  };
}

describe.skipIf(!testModelAvailable)("/v1/websocket against hostile frames", () => {
  let server: RunningSpeechServer;
  let url: string;
  let brokenModel: string;

  beforeAll(async () => {
    brokenModel = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-broken-model-"));
    // A damaged folder: every file a q8 model needs is there, and none of them holds a model.
    fs.mkdirSync(path.join(brokenModel, "onnx"));
    for (const file of requiredModelFiles("q8")) fs.writeFileSync(path.join(brokenModel, file), "{}");
    server = await startSpeechServer(
      testSpeechConfig({ SPEECH_WS_MAX_SESSIONS: "2", SPEECH_RATE_LIMIT_RPM: "0", SPEECH_RATE_LIMIT_AUDIO_SECONDS: "0", SPEECH_MODEL_MEDIUM: brokenModel }),
      { authenticate },
      { heartbeatMs: 500 },
    );
    url = `${server.websocketURL}?api_key=${KEY}&language=en`;
  });
  afterAll(async () => {
    await server?.close();
    if (brokenModel) fs.rmSync(brokenModel, { recursive: true, force: true });
  });

  it("answers every text frame that is not a known control message with an error, and the session goes on", async () => {
    const { ws, messages, closed } = await open(url);
    const frames = ["null", "1", "-0", "true", '"end"', "[]", '[{"type":"end"}]', "{}", '{"type":null}', '{"type":5}', '{"type":{"end":1}}', '{"__proto__":{"type":"end"}}', '{"type":"pause"}', "", "{", "\u0000"];
    for (const frame of frames) ws.send(frame);
    ws.send(Buffer.alloc(0)); // an empty binary frame is no audio, not an error
    await eventually(() => messages.filter((message) => message.type === "error").length === frames.length, "an error per frame");
    for (const message of messages.filter((message) => message.type === "error")) {
      expect(message.error).toMatchObject({ type: "invalid_request_error", code: "invalid_parameters", message: expect.any(String) });
    }
    ws.send(JSON.stringify({ type: "end" }));
    expect(await closed).toBe(1000);
    expect(messages.at(-1)).toMatchObject({ type: "closed", reason: "end" });
    await eventually(() => server.realtimeSessions() === 0, "the session to be released");
  });

  it("closes with 1007 on invalid UTF-8 and 1009 on a frame over 1 MiB, and releases both sessions", async () => {
    const utf8 = await open(url);
    utf8.ws.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
    expect(await utf8.closed).toBe(1007);
    const huge = await open(url);
    huge.ws.send(Buffer.alloc(1024 * 1024 + 1));
    expect(await huge.closed).toBe(1009);
    await eventually(() => server.realtimeSessions() === 0, "both sessions to be released");
  });

  it("refuses an empty or malformed numeric option, before the upgrade, as the HTTP endpoints do", async () => {
    for (const [query, param] of [
      ["temperature=", "temperature"],
      ["temperature=%20", "temperature"],
      ["temperature=NaN", "temperature"],
      ["temperature=1e400", "temperature"],
      ["temperature=-0.5", "temperature"],
      ["sample_rate=", "sample_rate"],
      ["sample_rate=16k", "sample_rate"],
      ["language=EN", "language"],
    ]) {
      expect(await connectRealtime(`${server.websocketURL}?api_key=${KEY}&${query}`), query).toMatchObject({
        status: 400,
        body: { error: { type: "invalid_request_error", code: "invalid_parameters", param } },
      });
    }
  });

  it("says which model is missing and how to install it: 400 model_not_found before the upgrade", async () => {
    const refusal = await connectRealtime(`${server.websocketURL}?api_key=${KEY}&model=small`);
    expect(refusal).toMatchObject({ status: 400, body: { error: { type: "invalid_request_error", code: "model_not_found", param: "model" } } });
    const message = String((refusal as Refusal).body.error.message);
    expect(message).toContain("'small'");
    expect(message).toContain("SPEECH_MODEL_SMALL");
    expect(message).toContain("MODELS_DIR");
    expect(message).toContain("ALLOW_REMOTE_MODELS");
  });

  it("reports the socket's live and maximum sessions in /v1/health, unhealthy for the socket while it is full", async () => {
    await eventually(() => server.realtimeSessions() === 0, "no session");
    expect((await health(server)).realtime).toEqual({ status: "healthy", sessions: 0, max_sessions: 2 });
    const first = await open(url);
    const second = await open(url);
    const full = await health(server);
    expect(full.realtime).toMatchObject({ status: "unhealthy", sessions: 2, max_sessions: 2, reason: expect.stringContaining("2") });
    for (const session of [first, second]) session.ws.send(JSON.stringify({ type: "end" }));
    await Promise.all([first.closed, second.closed]);
    await eventually(async () => (await health(server)).realtime.sessions === 0, "health to show no session");
  });

  it("releases a session whose client vanishes (TCP destroyed) mid-utterance", async () => {
    const socket = net.connect(server.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    socket.write(
      `GET /v1/websocket?api_key=${KEY} HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    );
    await new Promise((resolve) => socket.once("data", resolve));
    await eventually(() => server.realtimeSessions() === 1, "the session to open");
    // Half of a masked binary frame of loud audio, then the connection is gone.
    socket.write(Buffer.from([0x82, 0xfe, 0x10, 0x00, 0, 0, 0, 0, ...Buffer.alloc(2000, 0x7f)]));
    socket.destroy();
    await eventually(() => server.realtimeSessions() === 0, "the session to be released");
  });

  it("ends a session whose installed model fails to load after the upgrade: a server error naming its folder, 1011, released", async () => {
    const { messages, closed } = await open(`${server.websocketURL}?api_key=${KEY}&model=medium`);
    expect(await closed).toBe(1011);
    expect(messages).toEqual([
      { type: "error", error: expect.objectContaining({ type: "server_error", code: "internal_error", message: expect.stringContaining(`${brokenModel} (SPEECH_MODEL_MEDIUM)`) }) },
    ]);
    await eventually(() => server.realtimeSessions() === 0, "the session to be released");
  });

  it("terminates a client that stops answering pings (vanished without closing TCP) and releases its session", async () => {
    const socket = net.connect(server.port, "127.0.0.1");
    await new Promise((resolve) => socket.once("connect", resolve));
    const ended = new Promise((resolve) => socket.once("close", resolve));
    socket.resume(); // reads (and ignores) what the server sends
    socket.write(
      `GET /v1/websocket?api_key=${KEY} HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n",
    );
    // Never answers a ping (a raw socket speaks no WebSocket): the server's heartbeat (500 ms here) ends it.
    await ended;
    await eventually(() => server.realtimeSessions() === 0, "the session to be released");
  });

  it("takes float frames holding NaN, infinities and huge values as audio (clamped), not as an engine failure", async () => {
    const { ws, messages, closed } = await open(`${url}&encoding=pcm_f32le`);
    const samples = new Float32Array(16_000);
    for (let i = 0; i < samples.length; i++) samples[i] = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 3e38, -1, 1][i % 6]!;
    ws.send(Buffer.from(samples.buffer));
    ws.send(Buffer.from([1, 2, 3])); // a split sample: kept for the next frame
    ws.send(JSON.stringify({ type: "end" }));
    expect(await closed).toBe(1000);
    expect(messages.filter((message) => message.type === "error")).toEqual([]);
    expect(messages.at(-1)).toMatchObject({ type: "closed", reason: "end" });
  });
});
