import crypto from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { env } from "../env";
import { type ObjectStorage, ObjectNotFoundError } from "./object-storage";

/**
 * The embedded file store: objects are files under DATA_DIR/storage/<bucket>/<key>. Writes stream to a
 * temporary file beside the target and are renamed into place, so a reader never sees half a file.
 */

const bucketShape = /^[a-z0-9][a-z0-9.-]{0,62}$/;
const keySegmentShape = /^[A-Za-z0-9._-]+$/;

export function localStorageRoot(): string {
  return path.join(env().dataDir, "storage");
}

/** The file of an object; refuses keys that could leave the bucket (`..`, absolute paths, odd characters). */
export function localObjectPath(bucket: string, key: string, root = localStorageRoot()): string {
  if (!bucketShape.test(bucket)) throw new Error(`Invalid bucket name: ${bucket}`);
  const segments = key.split("/");
  if (segments.some((segment) => !keySegmentShape.test(segment) || segment === "." || segment === "..")) {
    throw new Error(`Invalid object key: ${key}`);
  }
  return path.join(root, bucket, ...segments);
}

/** The local-folder adapter of the storage port, rooted at `root` (DATA_DIR/storage by default). */
export function createLocalStorage(root = localStorageRoot()): ObjectStorage {
  return {
    async put(bucket, key, body) {
      const target = localObjectPath(bucket, key, root);
      await fs.mkdir(path.dirname(target), { recursive: true });
      const temporary = `${target}.tmp-${crypto.randomBytes(6).toString("hex")}`;
      let byteSize = 0;
      const counter = new Transform({
        transform(chunk: Buffer, _encoding, callback) {
          byteSize += chunk.length;
          callback(null, chunk);
        },
      });
      try {
        await pipeline(Readable.from(body, { objectMode: false }), counter, createWriteStream(temporary, { flags: "wx" }));
        await fs.rename(temporary, target);
        return { byteSize };
      } catch (error) {
        await fs.rm(temporary, { force: true });
        throw error;
      }
    },
    async get(bucket, key) {
      const file = localObjectPath(bucket, key, root);
      try {
        await fs.access(file);
      } catch {
        throw new ObjectNotFoundError(bucket, key);
      }
      return Readable.toWeb(createReadStream(file)) as ReadableStream<Uint8Array>;
    },
    async delete(bucket, key) {
      await fs.rm(localObjectPath(bucket, key, root), { force: true });
    },
  };
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** Writes a whole object held in memory (small files: the demo paper). */
export async function putObject(bucket: string, key: string, bytes: Uint8Array): Promise<void> {
  await createLocalStorage().put(bucket, key, once(bytes));
}

export async function getObject(bucket: string, key: string): Promise<Buffer> {
  return fs.readFile(localObjectPath(bucket, key));
}
