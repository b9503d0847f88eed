import "#server-only";
import { type Env, env } from "../env";
import { type LeftoverSweep, createLocalStorage, localStorageRoot, removeTemporaryLeftovers } from "./local";
import { type ObjectStorage, installedObjectStorage, useObjectStorage } from "./object-storage";
import { createS3Client, createS3Storage } from "./s3";

/**
 * The composition point of the storage port: the one module that knows which adapter the configuration
 * names (STORAGE_DRIVER: the local folder DATA_DIR/storage by default, or S3). The server opens and
 * installs it at start; a process that has installed none (a test, a script) gets it on first use.
 */
export function configuredObjectStorage(config: Env = env()): ObjectStorage {
  const settings = config.storage;
  if (settings.driver === "s3") return createS3Storage(createS3Client(settings), settings.buckets);
  return createLocalStorage(localStorageRoot(config.dataDir));
}

/** The configured adapter, checked to be usable: every required S3 bucket exists and answers (the app creates none). */
export async function openConfiguredStorage(config: Env = env()): Promise<ObjectStorage> {
  const settings = config.storage;
  if (settings.driver === "local") return configuredObjectStorage(config);
  const storage = createS3Storage(createS3Client(settings), settings.buckets);
  await storage.checkBuckets(settings.required);
  return storage;
}

/** The process's store: the installed adapter, else the configured one (installed now). */
export function objectStorage(): ObjectStorage {
  return installedObjectStorage() ?? useObjectStorage(configuredObjectStorage());
}

/**
 * Removes the temporary files that writes interrupted by a crash left in the configured adapter's
 * folder (see removeTemporaryLeftovers for `olderThanMs`). S3 has none: an interrupted multipart
 * upload's parts are removed by the bucket's AbortIncompleteMultipartUpload lifecycle rule.
 */
export async function removeStorageLeftovers(options: { olderThanMs: number }): Promise<LeftoverSweep> {
  if (env().storage.driver === "s3") return { files: 0, bytes: 0 };
  return removeTemporaryLeftovers(localStorageRoot(), options);
}
