/**
 * Every object goes through the storage port (issue 15, item 3): canvas snapshots and the demo seed
 * read and write through the adapter installed in the process, never the local folder behind its back;
 * the port module knows no adapter (no import cycle).
 */
import fs from "node:fs";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { emptyCanvasSnapshot } from "../server/classroom/canvas-snapshot-content";
import { type SnapshotAddress, loadSnapshot, storeSnapshot } from "../server/classroom/snapshots";
import { seedDemoSchool } from "../server/demo/seed";
import { type ObjectStorage, ObjectNotFoundError, isObjectNotFound, readObjectBytes, useObjectStorage } from "../server/storage/object-storage";
import { describeOnEachDatabase } from "./support/database";

// A data folder of this file's own: nothing may be written under it, all goes to the memory store.
const dataDir = vi.hoisted(() => {
  const directory = `${process.env.TMPDIR ?? "/tmp"}/markbook-storage-port-${process.pid}-${Date.now()}`;
  process.env.DATA_DIR = directory;
  return directory;
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

/** An adapter that keeps objects in memory: what reaches it went through the port. */
function memoryStorage(): ObjectStorage & { objects: Map<string, Buffer> } {
  const objects = new Map<string, Buffer>();
  return {
    objects,
    async put(bucket, key, body) {
      const chunks: Uint8Array[] = [];
      for await (const chunk of body) chunks.push(chunk);
      const bytes = Buffer.concat(chunks);
      objects.set(`${bucket}/${key}`, bytes);
      return { byteSize: bytes.byteLength };
    },
    async get(bucket, key) {
      const bytes = objects.get(`${bucket}/${key}`);
      if (!bytes) throw new ObjectNotFoundError(bucket, key);
      return new Blob([Uint8Array.from(bytes)]).stream();
    },
    async delete(bucket, key) {
      objects.delete(`${bucket}/${key}`);
    },
  };
}

const storageFolderIsEmpty = () => !fs.existsSync(`${dataDir}/storage`);

describe("the storage port", () => {
  it("knows no adapter: the port module imports nothing", () => {
    const source = fs.readFileSync("server/storage/object-storage.ts", "utf8");
    expect(source).not.toMatch(/^import |import\(/m);
  });

  it("recognises a missing object from another copy of the port module (server.ts and the Next bundles load their own)", async () => {
    vi.resetModules();
    const otherCopy = await import("../server/storage/object-storage");
    expect(otherCopy.ObjectNotFoundError).not.toBe(ObjectNotFoundError);
    expect(isObjectNotFound(new otherCopy.ObjectNotFoundError("b", "k"))).toBe(true);
    expect(isObjectNotFound(new Error("No object k in bucket b"))).toBe(false);
    expect(isObjectNotFound(null)).toBe(false);
  });

  it("stores and reads canvas snapshots through the installed adapter", async () => {
    const storage = useObjectStorage(memoryStorage()) as ReturnType<typeof memoryStorage>;
    const address: SnapshotAddress = {
      bucket: "cc.public.snapshots",
      nodeType: "Lesson",
      nodeId: "l1",
      dbName: "cc.institutes.example",
      key: "cc.institutes.example/Lesson/l1/canvas_file.json",
    };
    expect(await loadSnapshot(address)).toEqual({ snapshot: emptyCanvasSnapshot(), source: "default" });

    const snapshot = emptyCanvasSnapshot();
    const bytes = new TextEncoder().encode(JSON.stringify(snapshot));
    expect(await storeSnapshot(address, bytes)).toMatchObject({ status: "success", bytes: bytes.byteLength });
    expect([...storage.objects.keys()]).toEqual([`cc.public.snapshots/${address.key}`]);
    expect(await loadSnapshot(address)).toEqual({ snapshot, source: "stored" });
    expect(storageFolderIsEmpty()).toBe(true);
  });

  it("answers 502, not the empty canvas, when the adapter fails to read", async () => {
    useObjectStorage({ ...memoryStorage(), get: async () => Promise.reject(new Error("disk on fire")) });
    const address: SnapshotAddress = { bucket: "cc.public.snapshots", nodeType: "Lesson", nodeId: "l2", dbName: "db", key: "db/Lesson/l2/canvas_file.json" };
    await expect(loadSnapshot(address)).rejects.toMatchObject({ code: "upstream" });
  });
});

describeOnEachDatabase("the demo seed and the storage port", (database) => {
  let storage: ReturnType<typeof memoryStorage>;
  beforeAll(() => {
    storage = useObjectStorage(memoryStorage()) as ReturnType<typeof memoryStorage>;
  });

  it("stores the demo paper through the installed adapter", async () => {
    expect((await seedDemoSchool(database().db)).created).toBe(true);
    const [key] = [...storage.objects.keys()];
    expect(key).toMatch(/^markbook\/exam-papers\/.+\.pdf$/);
    const [bucket, ...rest] = key!.split("/");
    const bytes = await readObjectBytes(storage, bucket!, rest.join("/"));
    expect(bytes.subarray(0, 5).toString("latin1")).toBe("%PDF-");
    expect(storageFolderIsEmpty()).toBe(true);
  }, 120_000);
});
