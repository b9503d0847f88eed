/**
 * The demo school's bucket (`markbook`) is mapped by the same settings on every node, whether or not the
 * node seeds the demo: a node started with SEED_DEMO=false seeds it (as `markbook seed` does with the
 * nodes' settings) and reads its paper, and a node that seeds and one that does not map every bucket alike.
 */
import fs from "node:fs";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { files } from "../server/db/schema";
import { parseEnv } from "../server/env";
import { startMarkbook } from "../server/startup";
import { configuredObjectStorage, objectStorage } from "../server/storage/configured-storage";
import { putObjectBytes, readObjectBytes } from "../server/storage/object-storage";
import { DEMO_PAPER_BUCKET } from "../server/storage-settings";
import { type TestS3, startTestS3 } from "./support/s3";

const dataDir = vi.hoisted(() => {
  const directory = `${process.env.TMPDIR ?? "/tmp"}/markbook-s3-demo-${process.pid}-${Date.now()}`;
  process.env.DATA_DIR = directory;
  process.env.SEED_DEMO = "false";
  delete process.env.DATABASE_URL;
  return directory;
});

describe("the demo school's bucket on a node without SEED_DEMO", () => {
  let s3: TestS3;
  beforeAll(async () => {
    s3 = await startTestS3();
    Object.assign(process.env, s3.env, { STORAGE_S3_BUCKET_PREFIX: "demo-" });
  }, 60_000);
  afterAll(async () => {
    await s3?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("a node that seeds the demo and one that does not map every bucket alike", () => {
    for (const variables of [{ STORAGE_S3_BUCKET_PREFIX: "demo-" }, {}]) {
      const seeding = parseEnv({ ...s3.env, ...variables, SEED_DEMO: "true" }).storage;
      const other = parseEnv({ ...s3.env, ...variables, SEED_DEMO: "false" }).storage;
      expect(seeding.driver === "s3" && seeding.buckets).toEqual(other.driver === "s3" && other.buckets);
      expect(other).toMatchObject({ buckets: { [DEMO_PAPER_BUCKET]: `${variables.STORAGE_S3_BUCKET_PREFIX ?? ""}markbook` } });
    }
  });

  it("an explicit list that leaves the demo's bucket out is refused where the demo is seeded, and a seed elsewhere names the setting to add", async () => {
    const list = { STORAGE_S3_BUCKETS: "cc.exam.submissions=demo-cc.exam.submissions,cc.public.snapshots=demo-cc.public.snapshots" };
    expect(() => parseEnv({ ...s3.env, ...list, SEED_DEMO: "true" })).toThrow(/STORAGE_S3_BUCKETS: no real bucket for markbook/);
    const storage = configuredObjectStorage(parseEnv({ ...s3.env, ...list, SEED_DEMO: "false" }));
    await expect(putObjectBytes(storage, DEMO_PAPER_BUCKET, "exam-papers/x.pdf", new Uint8Array([1]))).rejects.toThrow(
      'No S3 bucket is mapped for the bucket markbook: add markbook=<real bucket> to STORAGE_S3_BUCKETS (docs/deploy.md, "The buckets")',
    );
  });

  it("seeds the demo school with the node's settings and reads its paper through the node's storage", async () => {
    await s3.createBuckets(["demo-cc.exam.submissions", "demo-cc.public.snapshots", "demo-markbook"]);
    const started = await startMarkbook();
    try {
      expect(started.demoInstituteId).toBeNull();
      const { seedDemoSchool } = await import("../server/demo/seed");
      await seedDemoSchool(started.database.db);
      const [paper] = await started.database.db.select().from(files).where(eq(files.bucket, DEMO_PAPER_BUCKET));
      const bytes = await readObjectBytes(objectStorage(), DEMO_PAPER_BUCKET, paper!.storage_key);
      expect(bytes.subarray(0, 5).toString()).toBe("%PDF-");
      expect(bytes.byteLength).toBe(paper!.byte_size);
    } finally {
      await started.close();
    }
  }, 180_000);
});
