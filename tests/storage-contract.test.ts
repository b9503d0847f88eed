/**
 * The storage port's contract (server/storage/object-storage.ts), run on every adapter: the local folder
 * and S3 (on s3rver, started here). Then what only S3 has: multipart streaming with bounded memory,
 * the bucket mapping, and the start-up check of the mapped buckets.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { parseEnv } from "../server/env";
import { openConfiguredStorage } from "../server/storage/configured-storage";
import { createLocalStorage } from "../server/storage/local";
import { type ObjectStorage, ObjectNotFoundError, isObjectNotFound, putObjectBytes, readObjectBytes } from "../server/storage/object-storage";
import { S3_PARTS_IN_FLIGHT, S3_PART_BYTES, createS3Client, createS3Storage } from "../server/storage/s3";
import { type TestS3, startTestS3 } from "./support/s3";

const MB = 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;

interface OpenedAdapter {
  storage: ObjectStorage;
  /** Grows with every file written (local) or request made (S3): unchanged means nothing was touched. */
  footprint(): number;
  close(): Promise<void>;
}

const BUCKET = "cc.exam.submissions";

function countEntries(folder: string): number {
  if (!fs.existsSync(folder)) return 0;
  return fs.readdirSync(folder, { withFileTypes: true, recursive: true }).length;
}

const adapters: { name: string; open(): Promise<OpenedAdapter> }[] = [
  {
    name: "the local folder",
    async open() {
      const root = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-storage-contract-"));
      return {
        storage: createLocalStorage(root),
        footprint: () => countEntries(root),
        close: async () => fs.rmSync(root, { recursive: true, force: true }),
      };
    },
  },
  {
    name: "S3 (s3rver)",
    async open() {
      const s3 = await startTestS3();
      await s3.createBuckets([`contract-${BUCKET}`]);
      return {
        storage: s3.storage({ [BUCKET]: `contract-${BUCKET}` }),
        footprint: () => s3.bytesReceived(),
        close: () => s3.stop(),
      };
    },
  },
];

/** `total` bytes of `fill` in 64 KiB chunks, made as the reader pulls; `before(produced)` runs before each chunk. */
async function* generated(total: number, fill: number, before?: (produced: number) => Promise<void> | void) {
  let produced = 0;
  while (produced < total) {
    await before?.(produced);
    const size = Math.min(CHUNK_BYTES, total - produced);
    produced += size;
    yield new Uint8Array(size).fill(fill);
  }
}

const isAll = (bytes: Buffer, length: number, fill: number) => bytes.byteLength === length && bytes.every((byte) => byte === fill);

describe.each(adapters)("the storage contract on $name", (adapter) => {
  let opened: OpenedAdapter;
  let storage: ObjectStorage;
  beforeAll(async () => {
    opened = await adapter.open();
    storage = opened.storage;
  }, 60_000);
  afterAll(() => opened?.close());

  it("reads back what was written, byte for byte, and counts its bytes", async () => {
    const bytes = crypto.randomBytes(200_000);
    const chunks = [bytes.subarray(0, 1), bytes.subarray(1, 70_000), bytes.subarray(70_000)];
    async function* body() {
      yield* chunks;
    }
    expect(await storage.put(BUCKET, "exam-submissions/b1/scan.pdf", body(), { contentType: "application/pdf" })).toEqual({ byteSize: 200_000 });
    expect((await readObjectBytes(storage, BUCKET, "exam-submissions/b1/scan.pdf")).equals(bytes)).toBe(true);

    expect(await putObjectBytes(storage, BUCKET, "empty.json", new Uint8Array())).toEqual({ byteSize: 0 });
    expect((await readObjectBytes(storage, BUCKET, "empty.json")).byteLength).toBe(0);
  });

  it("replaces an object atomically: while a multi-part overwrite is under way a reader gets the whole old object", async () => {
    const key = "exam-submissions/b1/overwritten.pdf";
    await storage.put(BUCKET, key, generated(3 * MB, 1));
    const total = 2 * S3_PART_BYTES + MB; // three parts on S3
    let reachedGate!: () => void;
    const reached = new Promise<void>((resolve) => (reachedGate = resolve));
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    const writing = storage.put(BUCKET, key, generated(total, 2, async (produced) => {
      if (produced === total - CHUNK_BYTES) {
        reachedGate();
        await gate;
      }
    }));
    await reached;
    expect(isAll(await readObjectBytes(storage, BUCKET, key), 3 * MB, 1)).toBe(true);
    openGate();
    expect(await writing).toEqual({ byteSize: total });
    expect(isAll(await readObjectBytes(storage, BUCKET, key), total, 2)).toBe(true);
  }, 60_000);

  it.each([
    ["a small body", 100_000],
    ["a body of several parts", S3_PART_BYTES + 2 * MB],
  ])("leaves nothing when %s throws mid-stream, and rethrows the body's own error", async (_, failAt) => {
    const failure = new Error("the scanner was unplugged");
    const failing = () =>
      generated(failAt + MB, 3, (produced) => {
        if (produced >= failAt) throw failure;
      });
    const fresh = `exam-submissions/b2/failed-${failAt}.pdf`;
    await expect(storage.put(BUCKET, fresh, failing())).rejects.toBe(failure);
    await expect(storage.get(BUCKET, fresh)).rejects.toBeInstanceOf(ObjectNotFoundError);

    const kept = `exam-submissions/b2/kept-${failAt}.pdf`;
    await storage.put(BUCKET, kept, generated(1000, 4));
    await expect(storage.put(BUCKET, kept, failing())).rejects.toBe(failure);
    expect(isAll(await readObjectBytes(storage, BUCKET, kept), 1000, 4)).toBe(true);
  }, 60_000);

  it("rejects a read of a missing object with ObjectNotFoundError", async () => {
    const missing = storage.get(BUCKET, "exam-submissions/none/missing.pdf");
    await expect(missing).rejects.toBeInstanceOf(ObjectNotFoundError);
    await expect(missing.catch((error) => isObjectNotFound(error))).resolves.toBe(true);
  });

  it("deletes an object, and deleting a missing one is not an error", async () => {
    await putObjectBytes(storage, BUCKET, "exam-submissions/b3/gone.pdf", new Uint8Array([1, 2, 3]));
    await storage.delete(BUCKET, "exam-submissions/b3/gone.pdf");
    await expect(storage.get(BUCKET, "exam-submissions/b3/gone.pdf")).rejects.toBeInstanceOf(ObjectNotFoundError);
    await expect(storage.delete(BUCKET, "exam-submissions/b3/gone.pdf")).resolves.toBeUndefined();
    await expect(storage.delete(BUCKET, "never/written.pdf")).resolves.toBeUndefined();
  });

  it("refuses hostile keys and bucket names before touching anything", async () => {
    const hostile: [string, string][] = [
      [BUCKET, "../escape.pdf"],
      [BUCKET, "a/../../escape.pdf"],
      [BUCKET, "/etc/passwd"],
      [BUCKET, "a//b.pdf"],
      [BUCKET, ""],
      [BUCKET, "a/./b.pdf"],
      [BUCKET, "nul\u0000.pdf"],
      [BUCKET, "back\\slash.pdf"],
      [BUCKET, "%2e%2e/escape.pdf"],
      [BUCKET, "spaced name.pdf"],
      ["..", "key.pdf"],
      ["", "key.pdf"],
      ["Upper.Case", "key.pdf"],
      ["a/b", "key.pdf"],
      ["-dash", "key.pdf"],
    ];
    const before = opened.footprint();
    for (const [bucket, key] of hostile) {
      await expect(storage.put(bucket, key, generated(10, 5)), `put ${bucket} ${key}`).rejects.toThrow(/^Invalid (bucket name|object key)/);
      await expect(storage.get(bucket, key), `get ${bucket} ${key}`).rejects.toThrow(/^Invalid (bucket name|object key)/);
      await expect(storage.delete(bucket, key), `delete ${bucket} ${key}`).rejects.toThrow(/^Invalid (bucket name|object key)/);
    }
    expect(opened.footprint()).toBe(before);
  });
});

describe("the S3 adapter", () => {
  let s3: TestS3;
  let storage: ObjectStorage;
  beforeAll(async () => {
    s3 = await startTestS3();
    await s3.createBuckets(["scans-real"]);
    storage = s3.storage({ [BUCKET]: "scans-real" });
  }, 60_000);
  afterAll(() => s3?.stop());

  it("streams a 50 MB scan with at most the parts in flight held in memory, and reads it back", async () => {
    const total = 50 * MB;
    // What the body has produced that has not yet reached the server: what the adapter holds.
    let heldMost = 0;
    const startedAt = s3.bytesReceived();
    const hash = crypto.createHash("sha256");
    async function* scan() {
      for await (const chunk of generated(total, 0)) {
        const filled = chunk.map((_, index) => index % 251);
        hash.update(filled);
        yield filled;
      }
    }
    let produced = 0;
    async function* measured() {
      for await (const chunk of scan()) {
        produced += chunk.byteLength;
        heldMost = Math.max(heldMost, produced - (s3.bytesReceived() - startedAt));
        yield chunk;
      }
    }
    expect(await storage.put(BUCKET, "exam-submissions/big/scan.pdf", measured())).toEqual({ byteSize: total });
    expect(heldMost).toBeLessThanOrEqual((S3_PARTS_IN_FLIGHT + 1) * S3_PART_BYTES + CHUNK_BYTES);

    const readBack = crypto.createHash("sha256");
    let read = 0;
    const reader = (await storage.get(BUCKET, "exam-submissions/big/scan.pdf")).getReader();
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      read += next.value.byteLength;
      readBack.update(next.value);
    }
    expect(read).toBe(total);
    expect(readBack.digest("hex")).toBe(hash.digest("hex"));
  }, 180_000);

  it("reports a service it cannot reach as a failure, never as a missing object (a 502, not a 404, for the routes)", async () => {
    const gone = await startTestS3();
    await gone.stop();
    const unreachable = createS3Client({ endpoint: gone.endpoint, region: gone.region, credentials: gone, forcePathStyle: true });
    const read = createS3Storage(unreachable, { [BUCKET]: "scans-real" }).get(BUCKET, "exam-submissions/b1/scan.pdf");
    await expect(read.catch((error) => isObjectNotFound(error))).resolves.toBe(false);
    await expect(read).rejects.toThrow(/ECONNREFUSED/);
    unreachable.destroy();
  }, 60_000);

  it("closes the body when the upload fails on the service's side (a mapped bucket that is gone)", async () => {
    const broken = s3.storage({ [BUCKET]: "no-such-bucket" });
    let closed = false;
    async function* body() {
      try {
        yield* generated(2 * S3_PART_BYTES + MB, 6);
      } finally {
        closed = true;
      }
    }
    await expect(broken.put(BUCKET, "exam-submissions/b1/scan.pdf", body())).rejects.toMatchObject({ name: "NoSuchBucket" });
    await vi.waitFor(() => expect(closed).toBe(true));
  }, 60_000);

  it("refuses a logical bucket that is not mapped, before any request", async () => {
    const before = s3.bytesReceived();
    await expect(storage.get("cc.public.snapshots", "a/b.json")).rejects.toThrow("No S3 bucket is mapped for the bucket cc.public.snapshots");
    await expect(storage.put("cc.public.snapshots", "a/b.json", generated(10, 1))).rejects.toThrow(/No S3 bucket is mapped/);
    expect(s3.bytesReceived()).toBe(before);
  });

  it("is what STORAGE_DRIVER=s3 configures, with the logical buckets mapped by a prefix", async () => {
    await s3.createBuckets(["dev-cc.exam.submissions", "dev-cc.public.snapshots"]);
    const config = parseEnv({ ...s3.env, STORAGE_S3_BUCKET_PREFIX: "dev-", SEED_DEMO: "false" });
    const configured = await openConfiguredStorage(config);
    await putObjectBytes(configured, "cc.public.snapshots", "db/Lesson/l1/canvas_file.json", new TextEncoder().encode("{}"));
    // Stored in the real bucket: read straight from it by the direct adapter.
    const direct = s3.storage({ raw: "dev-cc.public.snapshots" });
    expect((await readObjectBytes(direct, "raw", "db/Lesson/l1/canvas_file.json")).toString()).toBe("{}");
  });

  it("stops the start with an error naming a mapped bucket that does not exist (the app creates none)", async () => {
    const config = parseEnv({ ...s3.env, STORAGE_S3_BUCKETS: "cc.exam.submissions=scans-real,cc.public.snapshots=no-such-bucket", SEED_DEMO: "false" });
    await expect(openConfiguredStorage(config)).rejects.toThrow(/The S3 bucket no-such-bucket \(for cc\.public\.snapshots\) cannot be used: .*Markbook does not create buckets/);
  });
});
