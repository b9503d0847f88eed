import crypto from "node:crypto";
import fs from "node:fs/promises";
import path from "node:path";
import { env } from "../env";

/**
 * The embedded file store: objects are files under DATA_DIR/storage/<bucket>/<key>. Minimal for now;
 * the storage port (local folder | S3-compatible) builds on it.
 */

const bucketShape = /^[a-z0-9][a-z0-9.-]{0,62}$/;
const keySegmentShape = /^[A-Za-z0-9._-]+$/;

export function localStorageRoot(): string {
  return path.join(env().dataDir, "storage");
}

/** The file of an object; refuses keys that could leave the bucket (`..`, absolute paths, odd characters). */
export function localObjectPath(bucket: string, key: string): string {
  if (!bucketShape.test(bucket)) throw new Error(`Invalid bucket name: ${bucket}`);
  const segments = key.split("/");
  if (segments.some((segment) => !keySegmentShape.test(segment) || segment === "." || segment === "..")) {
    throw new Error(`Invalid object key: ${key}`);
  }
  return path.join(localStorageRoot(), bucket, ...segments);
}

/** Writes an object atomically: a reader sees the old bytes or the new ones, never half a file. */
export async function putObject(bucket: string, key: string, bytes: Uint8Array): Promise<void> {
  const target = localObjectPath(bucket, key);
  await fs.mkdir(path.dirname(target), { recursive: true });
  const temporary = `${target}.tmp-${crypto.randomBytes(6).toString("hex")}`;
  try {
    await fs.writeFile(temporary, bytes);
    await fs.rename(temporary, target);
  } catch (error) {
    await fs.rm(temporary, { force: true });
    throw error;
  }
}

export async function getObject(bucket: string, key: string): Promise<Buffer> {
  return fs.readFile(localObjectPath(bucket, key));
}
