/**
 * The server's start with STORAGE_DRIVER=s3: a mapped bucket that does not exist stops it, before the
 * database is opened, with an error naming the bucket (the app creates none); with the buckets there,
 * the S3 adapter is the process's store and nothing is written to the local storage folder.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startMarkbook } from "../server/startup";
import { objectStorage } from "../server/storage/configured-storage";
import { putObjectBytes, readObjectBytes } from "../server/storage/object-storage";
import { type TestS3, startTestS3 } from "./support/s3";

// A data folder of this file's own and the embedded database, set before anything reads the
// configuration; the S3 variables follow once s3rver has its port (before the first start reads them).
const dataDir = vi.hoisted(() => {
  const directory = `${process.env.TMPDIR ?? "/tmp"}/markbook-s3-start-${process.pid}-${Date.now()}`;
  process.env.DATA_DIR = directory;
  process.env.SEED_DEMO = "false";
  delete process.env.DATABASE_URL;
  return directory;
});

describe("the server's start on S3", () => {
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startTestS3();
    Object.assign(process.env, s3.env, { STORAGE_S3_BUCKET_PREFIX: "start-" });
  }, 60_000);
  afterAll(async () => {
    await s3?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("refuses to start while a mapped bucket is missing, naming it, before opening the database", async () => {
    await s3.createBuckets(["start-cc.exam.submissions"]);
    await expect(startMarkbook()).rejects.toThrow(
      /The S3 bucket start-cc\.public\.snapshots \(for cc\.public\.snapshots\) cannot be used: .*Markbook does not create buckets/,
    );
    expect(fs.existsSync(dataDir)).toBe(false);
  });

  it("installs the S3 adapter: objects go to the mapped buckets, nothing to the storage folder", async () => {
    await s3.createBuckets(["start-cc.public.snapshots"]);
    const started = await startMarkbook();
    try {
      const key = "db/Lesson/l1/canvas_file.json";
      await putObjectBytes(objectStorage(), "cc.public.snapshots", key, new TextEncoder().encode('{"ok":true}'));
      const direct = s3.storage({ raw: "start-cc.public.snapshots" });
      expect((await readObjectBytes(direct, "raw", key)).toString()).toBe('{"ok":true}');
      expect(fs.existsSync(path.join(dataDir, "storage"))).toBe(false);
    } finally {
      await started.close();
    }
  }, 180_000);
});
