/**
 * Malformed percent-encoding in a REST path (issue 32, item 13): `/api/exam/batches/%ff/queue` made
 * Next.js answer a plain-text 500, signed in or not. server.ts answers it first (answerMalformedPath)
 * with a 400 `{detail}`, for every method; here over HTTP on a server that mounts it as server.ts does,
 * with generated paths (e2e/api-paths.spec.ts asks the real server).
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerMalformedPath, restPrefixes } from "../server/http/malformed-path";
import { httpMethods } from "../server/http/route";
import { drainUnreadBodies } from "../server/http/unread-body";
import { restRoutes } from "../server/rest-routes";
import { fuzzSettings } from "./support/hostile-input";

const prefixes = restPrefixes(restRoutes);
/** What the stand-in for Next.js answers: the request went past the check. */
const PASSED = 299;

/** Escapes that decodeURIComponent refuses: no hex digits after %, or bytes that are not UTF-8. */
const malformedEscape = fc.oneof(
  fc.constant("%"),
  fc.constantFrom(..."ghijklmnopqrstuvwxyzGXZ-_.~!$&'()*+,;=:@").chain((c) => fc.constantFrom(`%${c}`, `%${c}0`, `%0${c}`, `%${c}${c}`)),
  // Lone continuation bytes, bytes that never occur, truncated sequences, overlong forms, surrogates.
  fc.constantFrom("%80", "%bf", "%ff", "%fe", "%c0%af", "%c3", "%e2%82", "%f0%9f%98", "%ed%a0%80", "%f8%88%80%80%80"),
);
/** A segment a URL may hold: plain, or any text percent-encoded as a client does. */
const goodSegment = fc.oneof(fc.webSegment(), fc.string({ minLength: 1, maxLength: 12 }).map(encodeURIComponent), fc.constantFrom("00000000-0000-4000-8000-000000000000", "%41", "%e2%82%ac"));

const restPath = fc
  .record({
    prefix: fc.constantFrom(...prefixes),
    before: fc.array(goodSegment, { maxLength: 4 }),
    after: fc.array(goodSegment, { maxLength: 3 }),
    escape: malformedEscape,
    // Text around the escape; a ~ after it, so that what follows never completes it into a valid one.
    around: fc.tuple(fc.webSegment(), fc.webSegment()),
    query: fc.option(fc.constantFrom("?dry_run=true", "?x=%ff", "?a=1&b=2"), { nil: "" }),
  })
  .map(({ prefix, before, after, escape, around, query }) => [`/${prefix}`, ...before, `${around[0]}${escape}~${around[1]}`, ...after].join("/") + query);

interface Reply {
  status: number;
  contentType: string | undefined;
  body: string;
}

describe("a REST path with malformed percent-encoding, over HTTP", () => {
  let server: http.Server;
  let port: number;
  beforeAll(async () => {
    server = http.createServer((request, response) => {
      if (answerMalformedPath(prefixes, request, response)) return;
      response.writeHead(PASSED).end();
    });
    drainUnreadBodies(server); // as server.ts: an answer before the body was read keeps the connection
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  /** The path sent exactly as written (fetch would normalise it). */
  const send = (method: string, path: string, body?: string) =>
    new Promise<Reply>((resolve, reject) => {
      const request = http.request({ host: "127.0.0.1", port, method, path, agent: false, headers: body ? { "content-type": "application/json" } : {} }, (response) => {
        let text = "";
        response.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode!, contentType: response.headers["content-type"], body: text }));
      });
      request.on("error", reject);
      request.end(body);
    });

  it("is a 400 with a {detail} naming the path and the escape, for every method, signed in or not (generated)", async () => {
    const { seed, cases } = fuzzSettings(300);
    await fc.assert(
      fc.asyncProperty(restPath, fc.constantFrom(...httpMethods), async (path, method) => {
        const reply = await send(method, path, method === "GET" ? undefined : "{}");
        expect(reply.status, `${method} ${path}`).toBe(400);
        expect(reply.contentType).toBe("application/json");
        const { detail } = JSON.parse(reply.body) as { detail: string };
        expect(detail).toMatch(/^The path \/\S+ is not valid: ".+" is not a percent-encoded character \(a % must start an escape of two hex digits/);
        expect(detail).toContain(path.split("?")[0]!.slice(0, 200));
      }),
      { seed, numRuns: cases },
    );
    const head = await send("HEAD", "/api/exam/batches/%ff/queue");
    expect(head.status).toBe(400);
  });

  it("names the escape at fault in the issue's example", async () => {
    const reply = await send("GET", "/api/exam/batches/%ff/queue");
    expect(JSON.parse(reply.body)).toEqual({
      detail:
        'The path /api/exam/batches/%ff/queue is not valid: "%ff" is not a percent-encoded character (a % must start an escape of two hex digits, and escapes must spell UTF-8; a % itself is written %25)',
    });
  });

  it("lets well-formed REST paths and every other path (pages, the speech API) through to Next.js (generated)", async () => {
    const wellFormed = fc
      .tuple(fc.constantFrom(...prefixes), fc.array(goodSegment, { maxLength: 5 }), fc.constantFrom("", "?x=%ff", "?q=a%20b"))
      .map(([prefix, segments, query]) => [`/${prefix}`, ...segments].join("/") + query);
    const elsewhere = fc
      .tuple(fc.constantFrom("/batches", "/templates", "/v1/models", "/", "/%ff", "/apix", "/api%ff"), malformedEscape)
      .map(([start, escape]) => `${start.replace(/\/$/, "")}/${escape}`);
    await fc.assert(
      fc.asyncProperty(fc.oneof(wellFormed, elsewhere), fc.constantFrom(...httpMethods), async (path, method) => {
        expect((await send(method, path)).status, `${method} ${path}`).toBe(PASSED);
      }),
      { numRuns: 200 },
    );
  });
});
