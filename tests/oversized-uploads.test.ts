/**
 * Oversized uploads are answered, not cut off (issue 14, item 6): the server answers 413 early and keeps
 * reading (and discarding) what the client still sends, up to a bound in bytes and time, so that a
 * client built on fetch reads the answer instead of a reset connection. The speech API runs on its test
 * server, the Next routes on a server that hands them the request body as Next does; both install the
 * same unread-body handling as server.ts.
 */
import fs from "node:fs";
import path from "node:path";
import OpenAI, { toFile } from "openai";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { POST as scansRoute } from "../app/api/exam/batches/[batch_id]/scans/route";
import { POST as createBatchRoute } from "../app/api/exam/batches/route";
import { POST as filesRoute } from "../app/api/exam/files/route";
import { PUT as putTemplate } from "../app/api/exam/templates/[template_id]/route";
import { POST as postTemplate } from "../app/api/exam/templates/route";
import { PUT as snapshotRoute } from "../app/put_canvas_node_file/route";
import { type Database, useDatabase } from "../server/db/client";
import { asService } from "../server/db/rls";
import { drainUnreadBodies } from "../server/http/unread-body";
import { createApiKey } from "../server/identity/api-keys";
import { createLocalStorage } from "../server/storage/local";
import { useObjectStorage } from "../server/storage/object-storage";
import { createTestDatabase, describeOnEachDatabase } from "./support/database";
import { callRest, createClassWithStudents, sampleCanvas } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";
import { RawConnection, chunk } from "./support/raw-http";
import { type RunningRouteServer, type WebHandler, startRouteServer } from "./support/route-server";
import { repeatedSpeechWav } from "./support/speech-audio";
import { type RunningSpeechServer, startSpeechServer, testModelAvailable, testSpeechConfig } from "./support/speech-server";
import { pdfFormAroundBlanks, streamedBody } from "./support/streamed-body";

const MAX_SCAN_BYTES = 1024 * 1024;
const MAX_SNAPSHOT_BYTES = 64 * 1024;

// A data folder of this file's own and small limits, set before anything reads the configuration.
const dataDir = vi.hoisted(() => {
  const directory = `${process.env.TMPDIR ?? "/tmp"}/markbook-oversized-${process.pid}-${Date.now()}`;
  process.env.DATA_DIR = directory;
  process.env.MAX_SCAN_BYTES = String(1024 * 1024);
  process.env.MAX_SNAPSHOT_BYTES = String(64 * 1024);
  return directory;
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** The Next routes under test, dispatched by path as Next's router would. */
const routes: WebHandler = async (request) => {
  const { pathname } = new URL(request.url);
  const scans = /^\/api\/exam\/batches\/([^/]+)\/scans$/.exec(pathname);
  if (scans) return scansRoute(request, { params: Promise.resolve({ batch_id: scans[1]! }) });
  if (pathname === "/api/exam/files") return filesRoute(request);
  if (pathname === "/put_canvas_node_file") return snapshotRoute(request);
  return new Response("no such route", { status: 404 });
};

describe("the unread body after an early answer (Next-style routes)", () => {
  let server: RunningRouteServer;
  const bounds = { maxBytes: 4 * 1024 * 1024, maxMs: 1_500 };
  beforeAll(async () => {
    // No database needed: the snapshot route refuses an unknown bucket (403) before the token rule.
    server = await startRouteServer(routes, (http) => drainUnreadBodies(http, bounds));
  });
  afterAll(() => server?.close());

  const earlyAnswerHead = (length: string) =>
    `PUT /put_canvas_node_file?path=elsewhere/User/x&db_name=school-graph HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n${length}\r\n\r\n`;

  it("keeps the connection after the answer while the rest of the body arrives, then serves the next request on it", async () => {
    const connection = await RawConnection.open(server.port);
    try {
      const body = Buffer.alloc(2 * 1024 * 1024, 0x20);
      await connection.write(earlyAnswerHead(`Content-Length: ${body.length}`));
      await connection.write(body.subarray(0, 64 * 1024));
      const first = await connection.nextResponse();
      expect(first?.status).toBe(403);
      expect(JSON.parse(first!.body)).toEqual({ detail: expect.stringMatching(/snapshots bucket/) });
      expect(await connection.write(body.subarray(64 * 1024))).toBe(true);
      await connection.write(earlyAnswerHead("Content-Length: 2") + "{}");
      const second = await connection.nextResponse();
      expect(second?.status).toBe(403);
      expect(connection.error).toBeNull();
    } finally {
      connection.end();
    }
  });

  it("cuts off a client that keeps sending slowly after the answer, once the time bound has passed", async () => {
    const connection = await RawConnection.open(server.port);
    try {
      await connection.write(earlyAnswerHead("Transfer-Encoding: chunked"));
      await connection.write(chunk("{"));
      expect((await connection.nextResponse())?.status).toBe(403);
      // A byte every 50 ms, forever: far below the byte bound, so only the time bound can end it.
      const trickle = setInterval(() => void connection.write(chunk(" ")), 50);
      try {
        expect(await connection.closedWithin(20_000)).toBe(true);
      } finally {
        clearInterval(trickle);
      }
    } finally {
      connection.end();
    }
  }, 30_000);

  it("cuts off a client that keeps sending fast after the answer, once the byte bound has passed", async () => {
    const connection = await RawConnection.open(server.port);
    try {
      await connection.write(earlyAnswerHead("Transfer-Encoding: chunked"));
      await connection.write(chunk("{"));
      expect((await connection.nextResponse())?.status).toBe(403);
      const piece = chunk(new Uint8Array(256 * 1024));
      let sent = 0;
      // Ten times the byte bound at most: the server must hang up long before (the loop ends when it does).
      while (sent < 10 * bounds.maxBytes && (await connection.write(piece))) sent += piece.length;
      expect(await connection.closedWithin(20_000)).toBe(true);
      expect(sent).toBeGreaterThanOrEqual(bounds.maxBytes - piece.length);
      expect(sent).toBeLessThan(10 * bounds.maxBytes);
    } finally {
      connection.end();
    }
  }, 30_000);
});

describeOnEachDatabase("oversized uploads through fetch", (database) => {
  let server: RunningRouteServer;
  let school: School;
  let batchId: string;

  beforeAll(async () => {
    useObjectStorage(createLocalStorage(path.join(dataDir, "storage")));
    school = await createSchool(database().db, "Oversized");
    const template = await (await callRest(postTemplate, { method: "POST", token: school.teacher.token, body: { title: "Mock", page_count: 4 } })).json();
    await callRest(putTemplate, { method: "PUT", token: school.teacher.token, body: sampleCanvas(), params: { template_id: template.id } });
    const roster = await createClassWithStudents(database().db, school, 1);
    const batch = await (
      await callRest(createBatchRoute, { method: "POST", token: school.teacher.token, body: { template_id: template.id, class_id: roster.class.id } })
    ).json();
    batchId = batch.id;
    server = await startRouteServer(routes, (http) => drainUnreadBodies(http));
  });
  afterAll(() => server?.close());

  const headers = (contentType: string) => ({ authorization: `Bearer ${school.teacher.token}`, "content-type": contentType });

  async function expectTooLarge(response: Response) {
    expect(response.status).toBe(413);
    expect(await response.json()).toEqual({ detail: expect.stringMatching(/ is too large: the largest accepted is \d+(\.\d)? (MB|kB|bytes)$/) });
  }

  it("a scan over MAX_SCAN_BYTES: 413 with its {detail}, streamed or declared", async () => {
    const form = pdfFormAroundBlanks();
    const url = `${server.baseURL}/api/exam/batches/${batchId}/scans`;
    const { body } = streamedBody(form.head, 16 * MAX_SCAN_BYTES, form.tail);
    await expectTooLarge(await fetch(url, { method: "POST", headers: headers(form.contentType), body, duplex: "half" } as RequestInit));
    const declared = Buffer.concat([form.head, Buffer.alloc(16 * MAX_SCAN_BYTES, 0x20), form.tail]);
    await expectTooLarge(await fetch(url, { method: "POST", headers: headers(form.contentType), body: declared }));
  });

  it("a template PDF over the limit: 413 with its {detail}", async () => {
    const form = pdfFormAroundBlanks();
    const { body } = streamedBody(form.head, 16 * MAX_SCAN_BYTES, form.tail);
    await expectTooLarge(await fetch(`${server.baseURL}/api/exam/files`, { method: "POST", headers: headers(form.contentType), body, duplex: "half" } as RequestInit));
  });

  it("a snapshot over MAX_SNAPSHOT_BYTES: 413 with its {detail}", async () => {
    const url = `${server.baseURL}/put_canvas_node_file?path=cc.public.snapshots/User/${school.teacher.id}&db_name=${school.teacher.user_db_name}`;
    const json = new TextEncoder().encode('{"document": "');
    const { body } = streamedBody(json, 64 * MAX_SNAPSHOT_BYTES, new TextEncoder().encode('"}'));
    await expectTooLarge(await fetch(url, { method: "PUT", headers: headers("application/json"), body, duplex: "half" } as RequestInit));
    expect(fs.existsSync(path.join(dataDir, "storage", "cc.public.snapshots", "User", school.teacher.id))).toBe(false);
  });
});

describe.skipIf(!testModelAvailable)("oversized audio through the openai client", () => {
  let database: Database;
  let server: RunningSpeechServer;
  let key: string;
  const limit = 100_000;

  beforeAll(async () => {
    database = await createTestDatabase("pglite");
    useDatabase(database);
    key = (await asService(database.db, (tx) => createApiKey(tx, { name: "oversized" }))).key;
    server = await startSpeechServer(testSpeechConfig({ MAX_AUDIO_BYTES: String(limit) }));
  });
  afterAll(async () => {
    await server?.close();
    await database?.close();
  });

  it("413 file_too_large as an APIError, not a connection error, for transcriptions and translations", async () => {
    const client = new OpenAI({ apiKey: key, baseURL: server.baseURL, maxRetries: 0, timeout: 60_000 });
    // 1 MB: within the room allowed for the form besides the file, so refused while streaming; 6 MB:
    // refused from its declared length before anything is read.
    for (const seconds of [30, 190]) {
      const file = await toFile(repeatedSpeechWav(seconds), "long.wav");
      for (const call of [() => client.audio.transcriptions.create({ file, model: "tiny" }), () => client.audio.translations.create({ file, model: "tiny" })]) {
        const error = await call().then(
          () => null,
          (failure: unknown) => failure,
        );
        expect(error).toBeInstanceOf(OpenAI.APIError);
        expect(error).not.toBeInstanceOf(OpenAI.APIConnectionError);
        expect(error).toMatchObject({ status: 413, code: "file_too_large" });
      }
    }
  });

  it("keeps the connection after the 413 while the rest of the upload arrives, then serves the next request on it", async () => {
    const connection = await RawConnection.open(server.port);
    try {
      const boundary = "oversized";
      const head = Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\ntiny\r\n` +
          `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
      );
      const body = Buffer.concat([head, Buffer.alloc(4 * limit, 1), Buffer.from(`\r\n--${boundary}--\r\n`)]);
      await connection.write(
        `POST /v1/audio/transcriptions HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n` +
          `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\n\r\n`,
      );
      await connection.write(body.subarray(0, 2 * limit));
      const refused = await connection.nextResponse();
      expect(refused?.status).toBe(413);
      expect(JSON.parse(refused!.body)).toMatchObject({ error: { code: "file_too_large" } });
      expect(await connection.write(body.subarray(2 * limit))).toBe(true);
      await connection.write(`GET /v1/models HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer ${key}\r\n\r\n`);
      const next = await connection.nextResponse();
      expect(next?.status).toBe(200);
    } finally {
      connection.end();
    }
  });
});
