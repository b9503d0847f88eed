/**
 * tRPC bodies are bounded (issue 32, item 10): a student's 400 MB body to any procedure grew the server
 * by 857 MB before validation. Over HTTP, as Next hands the route its body: the read stops past the
 * limit with the REST 413's sentence in tRPC's own error shape, for single and batched calls.
 */
import http from "node:http";
import { afterAll, beforeAll, expect, it } from "vitest";
import { GET, POST } from "../app/api/trpc/[trpc]/route";
import { DEFAULT_DRAIN_BOUNDS, drainUnreadBodies } from "../server/http/unread-body";
import { trpcMaxBodyBytes } from "../server/trpc/body-limit";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { type RunningRouteServer, startRouteServer } from "./support/route-server";
import { streamedBody } from "./support/streamed-body";

const OFFERED = 400 * 1024 * 1024;
/** Generous: the limit (16 MB) read, the pieces in flight and the drain after the answer, far below the 400 MB offered. */
const MAX_RSS_GROWTH = 150 * 1024 * 1024;
/** What the client may still send after the answer: the drain server.ts installs (a reset would hide the answer from fetch). */
const AFTER_ANSWER = DEFAULT_DRAIN_BOUNDS.maxBytes + 16 * 1024 * 1024;

const limit = trpcMaxBodyBytes();
const tooLargeSentence = `The request is too large: the largest accepted is ${Math.round(limit / (1024 * 1024))} MB`;

describeOnEachDatabase("tRPC request bodies over HTTP", (database) => {
  let school: School;
  let server: RunningRouteServer;
  beforeAll(async () => {
    school = await createSchool(database().db, "TrpcBodies");
    server = await startRouteServer((request) => (request.method === "GET" ? GET(request) : POST(request)), (httpServer: http.Server) => drainUnreadBodies(httpServer));
  });
  afterAll(() => server?.close());

  const headers = (token: string) => ({ authorization: `Bearer ${token}`, "content-type": "application/json" });

  /** A JSON body that never ends well: `{"0":{"json":{"files":[{"name":"a.csv","base64":"` and then blanks. */
  const endlessJson = () => streamedBody(new TextEncoder().encode('{"0":{"json":{"files":[{"name":"a.csv","base64":"'), OFFERED);

  it("a student's endless body to a mutation: 413 in tRPC's shape with the REST sentence, read no further than the limit", async () => {
    const stream = endlessJson();
    const before = process.memoryUsage.rss();
    const response = await fetch(`${server.baseURL}/api/trpc/rosterImport.preview`, {
      method: "POST",
      headers: headers(school.student.token),
      body: stream.body,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({
      error: { json: { message: tooLargeSentence, data: { code: "PAYLOAD_TOO_LARGE", httpStatus: 413, path: "rosterImport.preview" } } },
    });
    expect(process.memoryUsage.rss() - before).toBeLessThan(MAX_RSS_GROWTH);
    // What the client was asked for: the limit, the drain after the answer and buffers, not the 400 MB.
    expect(stream.sent()).toBeLessThan(limit + AFTER_ANSWER);
  });

  it("a batch of calls with an endless body: each call answers the 413", async () => {
    const stream = endlessJson();
    const response = await fetch(`${server.baseURL}/api/trpc/rosterImport.preview,rosterImport.commit?batch=1`, {
      method: "POST",
      headers: headers(school.teacher.token),
      body: stream.body,
      duplex: "half",
    } as RequestInit);
    expect(response.status).toBe(413);
    const replies = (await response.json()) as { error: { json: { message: string; data: { code: string } } } }[];
    expect(replies).toHaveLength(2);
    for (const reply of replies) expect(reply.error.json).toMatchObject({ message: tooLargeSentence, data: { code: "PAYLOAD_TOO_LARGE" } });
    expect(stream.sent()).toBeLessThan(limit + AFTER_ANSWER);
  });

  it("a declared Content-Length over the limit is refused before the body is read", async () => {
    const response = await fetch(`${server.baseURL}/api/trpc/rosterImport.preview`, {
      method: "POST",
      headers: { ...headers(school.admin.token), "content-length": String(limit + 1) },
      body: streamedBody(new Uint8Array(), limit + 1 - 64 * 1024).body,
      duplex: "half",
    } as RequestInit).catch((error: unknown) => error as Error);
    expect(response).toBeInstanceOf(Response);
    expect((response as Response).status).toBe(413);
    expect(((await (response as Response).json()) as { error: { json: { message: string } } }).error.json.message).toBe(tooLargeSentence);
  });

  it("a body within the limit is read as before, and a caller without a token is refused without reading it", async () => {
    const csv = Buffer.from("Name,Email\nAda Bounded,ada.bounded@example.org\n").toString("base64");
    const preview = await fetch(`${server.baseURL}/api/trpc/rosterImport.preview`, {
      method: "POST",
      headers: headers(school.admin.token),
      body: JSON.stringify({ json: { files: [{ name: "pupils.csv", base64: csv }] } }),
    });
    expect(preview.status).toBe(200);
    expect(((await preview.json()) as { result: { data: { json: { counts: { create: number } } } } }).result.data.json.counts.create).toBe(1);

    const stream = endlessJson();
    const anonymous = await fetch(`${server.baseURL}/api/trpc/rosterImport.preview`, { method: "POST", headers: { "content-type": "application/json" }, body: stream.body, duplex: "half" } as RequestInit);
    expect(anonymous.status).toBe(401);
    expect(stream.sent()).toBeLessThan(AFTER_ANSWER);
  });
});
