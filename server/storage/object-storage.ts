/**
 * The file storage port. Objects are addressed by bucket and key (`a/b/c.pdf`); bodies stream in and
 * out, so a 50 MB scan never sits in memory. Adapters: the local folder (embedded default, in
 * ./local.ts); an S3-compatible adapter can implement the same interface.
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

export class ObjectNotFoundError extends Error {
  constructor(bucket: string, key: string) {
    super(`No object ${key} in bucket ${bucket}`);
    this.name = "ObjectNotFoundError";
  }
}

// One store per process (Next bundles load their own module copies), as with the database.
const slot = globalThis as typeof globalThis & { __markbookObjectStorage?: ObjectStorage };

/** The configured store: the local folder unless another adapter was installed with useObjectStorage. */
export async function objectStorage(): Promise<ObjectStorage> {
  if (!slot.__markbookObjectStorage) {
    const { createLocalStorage } = await import("./local");
    slot.__markbookObjectStorage = createLocalStorage();
  }
  return slot.__markbookObjectStorage;
}

/** Installs an adapter for this process (the server at start, tests with a folder of their own). */
export function useObjectStorage(storage: ObjectStorage): void {
  slot.__markbookObjectStorage = storage;
}
