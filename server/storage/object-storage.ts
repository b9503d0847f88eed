/**
 * The file storage port. Objects are addressed by bucket and key (`a/b/c.pdf`); bodies stream in and
 * out, so a 50 MB scan never sits in memory. This module knows no adapter: the local folder
 * (./local.ts) and any other (an S3-compatible one) implement the interface, and the composition point
 * (./configured-storage.ts) picks and installs one.
 */
export interface ObjectStorage {
  /** Streams `body` into the object, atomically: readers see the old object or the whole new one. If
   * `body` throws, nothing is left behind and that same error is rethrown. */
  put(bucket: string, key: string, body: AsyncIterable<Uint8Array>, options?: { contentType?: string }): Promise<{ byteSize: number }>;
  /** The object's bytes as a stream; rejects with ObjectNotFoundError when there is none. */
  get(bucket: string, key: string): Promise<ReadableStream<Uint8Array>>;
  /** Removes the object; removing one that does not exist is not an error. */
  delete(bucket: string, key: string): Promise<void>;
}

// A registry symbol, the same in every copy of this module: the adapter installed by server.ts and the
// Next bundles that read through it load different copies, so `instanceof` would not recognise the error.
const notFoundMark = Symbol.for("markbook.ObjectNotFoundError");

export class ObjectNotFoundError extends Error {
  readonly [notFoundMark] = true;
  constructor(bucket: string, key: string) {
    super(`No object ${key} in bucket ${bucket}`);
    this.name = "ObjectNotFoundError";
  }
}

/** Whether `error` is an adapter's "no such object" (from whichever copy of this module made it). */
export function isObjectNotFound(error: unknown): boolean {
  return typeof error === "object" && error !== null && notFoundMark in error;
}

// One store per process (Next bundles load their own module copies), as with the database.
const slot = globalThis as typeof globalThis & { __markbookObjectStorage?: ObjectStorage };

/** The adapter installed in this process, if any. */
export function installedObjectStorage(): ObjectStorage | undefined {
  return slot.__markbookObjectStorage;
}

/** Installs an adapter for this process (the server at start, tests with a folder of their own). */
export function useObjectStorage(storage: ObjectStorage): ObjectStorage {
  slot.__markbookObjectStorage = storage;
  return storage;
}

async function* once(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}

/** Writes a whole object held in memory: small ones only (a canvas snapshot, the demo paper). */
export function putObjectBytes(storage: ObjectStorage, bucket: string, key: string, bytes: Uint8Array, options?: { contentType?: string }) {
  return storage.put(bucket, key, once(bytes), options);
}

/** Reads a whole object into memory: small ones only. Rejects with ObjectNotFoundError when there is none. */
export async function readObjectBytes(storage: ObjectStorage, bucket: string, key: string): Promise<Buffer> {
  const body = await storage.get(bucket, key);
  return Buffer.from(await new Response(body).arrayBuffer());
}
