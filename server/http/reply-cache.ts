import crypto from "node:crypto";
import type { z } from "zod";
import type { Db } from "../db/client";
import { validatedReply } from "./validated-reply";

/**
 * The mechanism of the reply cache (what is cached and how it is shared is the domain's:
 * server/classroom/reply-cache.ts). A reply is computed by the caller's own function, checked against
 * its schema and serialised once; the cache keeps the JSON bytes and a strong ETag (SHA-256 of the
 * bytes) and answers `If-None-Match` with 304. An entry is used only while the version its sharing names
 * is unchanged. Memory is bounded: a least-recently-used list of at most REPLY_CACHE_MAX_BYTES of reply
 * bytes per database handle; one reply larger than a quarter of that is served but not kept. Concurrent
 * misses of one entry share one computation.
 */

const REPLY_CACHE_MAX_BYTES = 64 * 1024 * 1024;

/** Bytes an entry counts for besides its body: key, ETag, bookkeeping. */
const ENTRY_OVERHEAD_BYTES = 256;

interface CachedReply {
  /** The serialised JSON. Read-only: every response sends these very bytes (see respond). */
  bytes: Uint8Array;
  /** The length of `bytes` when written: a body chunk that was transferred (detached) reads 0. */
  length: number;
  etag: string;
  /** Bytes the entry counts for in the memory bound. */
  size: number;
}

interface CacheEntry extends CachedReply {
  version: string;
}

/** A map in least-recently-used order, bounded by the bytes of its entries. */
export class ByteBoundedLru<Entry extends { size: number }> {
  private readonly entries = new Map<string, Entry>();
  private totalBytes = 0;

  constructor(readonly maxBytes: number) {}

  get bytes(): number {
    return this.totalBytes;
  }

  get size(): number {
    return this.entries.size;
  }

  get(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry) {
      // Most recently used goes last.
      this.entries.delete(key);
      this.entries.set(key, entry);
    }
    return entry;
  }

  set(key: string, entry: Entry): void {
    this.delete(key);
    if (entry.size > this.maxBytes / 4) return; // it would push out most of the others
    this.entries.set(key, entry);
    this.totalBytes += entry.size;
    for (const [oldestKey] of this.entries) {
      if (this.totalBytes <= this.maxBytes) break;
      this.delete(oldestKey);
    }
  }

  delete(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.totalBytes -= entry.size;
  }
}

interface ReplyCache {
  entries: ByteBoundedLru<CacheEntry>;
  /** Computations under way, by key and version. */
  inFlight: Map<string, Promise<CachedReply>>;
}

// One cache per database handle (tests open many databases in one process), shared by the Next.js
// bundles of this process, which load their own copies of this module.
const slot = globalThis as typeof globalThis & { __markbookReplyCaches?: WeakMap<Db, ReplyCache> };

function replyCacheOf(db: Db): ReplyCache {
  const caches = (slot.__markbookReplyCaches ??= new WeakMap());
  let cache = caches.get(db);
  if (!cache) {
    cache = { entries: new ByteBoundedLru(REPLY_CACHE_MAX_BYTES), inFlight: new Map() };
    caches.set(db, cache);
  }
  return cache;
}

/** Entries and bytes held for this database (for tests and diagnostics). */
export function replyCacheUsage(db: Db): { entries: number; bytes: number } {
  const { entries } = replyCacheOf(db);
  return { entries: entries.size, bytes: entries.bytes };
}

/** Where a reply may be shared: the entry's key and the database version the entry must carry. */
export interface Sharing {
  key: string;
  version: string;
}

const JSON_HEADERS = { "content-type": "application/json", "cache-control": "private, no-cache" };

const utf8 = new TextEncoder();

/** Checks, serialises and fingerprints a freshly computed reply. */
async function serialise(route: string, schema: z.ZodType, produce: () => Promise<unknown>): Promise<CachedReply> {
  const reply = validatedReply(schema, await produce(), route);
  // TextEncoder gives the bytes an ArrayBuffer of their own (a small Buffer would share Node's pool).
  const bytes = utf8.encode(JSON.stringify(reply));
  const etag = `"${crypto.createHash("sha256").update(bytes).digest("base64url")}"`;
  return { bytes, length: bytes.byteLength, etag, size: bytes.byteLength + ENTRY_OVERHEAD_BYTES };
}

/** True when an If-None-Match header names this entity tag (weak comparison, as RFC 9110 asks). */
function ifNoneMatchHits(header: string | null, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((tag) => tag.trim().replace(/^W\//, "") === etag);
}

function respond(request: Request, reply: CachedReply): Response {
  if (ifNoneMatchHits(request.headers.get("if-none-match"), reply.etag)) {
    return new Response(null, { status: 304, headers: { etag: reply.etag, "cache-control": JSON_HEADERS["cache-control"] } });
  }
  // The body is one chunk, the entry's own bytes, not a copy: a Uint8Array or Blob body is copied per
  // response, which for the 340 kB of 2000 students costs about 0.2 ms of CPU (mostly page faults on
  // the fresh memory), as much as the rest of the request. Nothing in the response path writes to a body
  // chunk (Node writes it to the socket; Response.json()/arrayBuffer() copy it); should something
  // transfer it, the entry notices (its length reads 0) and is computed again.
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(reply.bytes);
      controller.close();
    },
  });
  return new Response(body, { headers: { ...JSON_HEADERS, etag: reply.etag } });
}

export async function serveCachedReply(
  request: Request,
  db: Db,
  route: string,
  schema: z.ZodType,
  sharing: Sharing | null,
  produce: () => Promise<unknown>,
): Promise<Response> {
  if (!sharing) return respond(request, await serialise(route, schema, produce));
  const cache = replyCacheOf(db);
  const cached = cache.entries.get(sharing.key);
  if (cached?.version === sharing.version && cached.bytes.byteLength === cached.length) return respond(request, cached);

  // Concurrent misses of one entry at one version share one computation: every caller of a key sees the
  // same rows, so whose request computes it does not matter.
  const flightKey = `${sharing.version} ${sharing.key}`;
  let flight = cache.inFlight.get(flightKey);
  if (!flight) {
    flight = serialise(route, schema, produce)
      .then((reply) => {
        // The versions were read before the rows: a write in between leaves an entry with the old version
        // and newer rows, which the next request replaces; never old rows under a new version.
        cache.entries.set(sharing.key, { ...reply, version: sharing.version });
        return reply;
      })
      .finally(() => cache.inFlight.delete(flightKey));
    cache.inFlight.set(flightKey, flight);
  }
  return respond(request, await flight);
}
