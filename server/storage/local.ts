import crypto from "node:crypto";
import { type Dirent, createReadStream, createWriteStream } from "node:fs";
import fs from "node:fs/promises";
import path from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { env } from "../env";
import { checkedObjectAddress } from "../object-address";
import { type ObjectStorage, ObjectNotFoundError } from "./object-storage";

/**
 * The embedded file store: objects are files under DATA_DIR/storage/<bucket>/<key>. Writes stream to a
 * temporary file beside the target and are renamed into place, so a reader never sees half a file.
 */

export function localStorageRoot(dataDir = env().dataDir): string {
  return path.join(dataDir, "storage");
}

/** The file of an object; refuses keys that could leave the bucket (`..`, absolute paths, odd characters). */
export function localObjectPath(bucket: string, key: string, root = localStorageRoot()): string {
  return path.join(root, bucket, ...checkedObjectAddress(bucket, key));
}

/** The temporary file `put` writes beside `target` before renaming it into place, and its name's shape. */
const temporaryPath = (target: string) => `${target}.tmp-${crypto.randomBytes(6).toString("hex")}`;
const temporaryName = /\.tmp-[0-9a-f]{12}$/;

export interface LeftoverSweep {
  files: number;
  bytes: number;
}

/**
 * Removes the temporary files that writes interrupted by a crash (a killed process mid-upload or
 * mid-snapshot) left under `root`; a finished or failed write never leaves one. Only names of that exact
 * shape are touched, never an object. `olderThanMs` 0 removes them all: right for a process that holds
 * the DATA_DIR lock, as no other process can be writing there; a folder shared by several processes
 * passes an age instead (a write in progress keeps its file's modification time fresh).
 */
export async function removeTemporaryLeftovers(root = localStorageRoot(), options: { olderThanMs: number }): Promise<LeftoverSweep> {
  const removed: LeftoverSweep = { files: 0, bytes: 0 };
  const cutoff = Date.now() - options.olderThanMs;
  const sweep = async (folder: string): Promise<void> => {
    let entries: Dirent[];
    try {
      entries = await fs.readdir(folder, { withFileTypes: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return; // no storage yet, or removed meanwhile
      throw error;
    }
    for (const entry of entries) {
      const file = path.join(folder, entry.name);
      if (entry.isDirectory()) await sweep(file);
      else if (entry.isFile() && temporaryName.test(entry.name)) {
        const stat = await fs.stat(file).catch(() => null);
        if (!stat || (options.olderThanMs > 0 && stat.mtimeMs > cutoff)) continue;
        await fs.rm(file, { force: true });
        removed.files += 1;
        removed.bytes += stat.size;
      }
    }
  };
  await sweep(root);
  return removed;
}

/** The local-folder adapter of the storage port, rooted at `root` (DATA_DIR/storage by default). */
export function createLocalStorage(root = localStorageRoot()): ObjectStorage {
  return {
    async put(bucket, key, body) {
      const target = localObjectPath(bucket, key, root);
      await fs.mkdir(path.dirname(target), { recursive: true });
      const temporary = temporaryPath(target);
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
