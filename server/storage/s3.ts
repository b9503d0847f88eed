import { DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, S3Client } from "@aws-sdk/client-s3";
import { Upload } from "@aws-sdk/lib-storage";
import { ConfigError } from "../env";
import { logger } from "../logger";
import { checkedObjectAddress } from "../object-address";
import { type ObjectStorage, ObjectNotFoundError } from "./object-storage";
import type { S3Settings } from "../storage-settings";

/**
 * The S3-compatible adapter of the storage port (AWS S3, MinIO, Ceph, R2, ...). The app's logical
 * buckets map to real ones (see server/storage-settings.ts). A put streams through a multipart upload, so
 * memory holds at most S3_PARTS_IN_FLIGHT parts plus the one being filled whatever the object's size;
 * S3 makes an object visible only when its PutObject or CompleteMultipartUpload succeeds, so readers
 * see the old object or the whole new one.
 */

/** S3's smallest part (the last one may be smaller): 10,000 parts make 50 GB, far above MAX_SCAN_BYTES. */
export const S3_PART_BYTES = 5 * 1024 * 1024;
/** Parts uploaded at once by one put. */
export const S3_PARTS_IN_FLIGHT = 2;

export function createS3Client(settings: Omit<S3Settings, "driver" | "buckets">): S3Client {
  return new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    credentials: settings.credentials,
    forcePathStyle: settings.forcePathStyle,
    // Checksums only where S3 requires them: S3-compatible servers do not all know the newer headers.
    requestChecksumCalculation: "WHEN_REQUIRED",
    responseChecksumValidation: "WHEN_REQUIRED",
  });
}

export interface S3Storage extends ObjectStorage {
  /** Fails with a ConfigError naming the first mapped bucket (of `only`, when given) that is missing or out of reach. */
  checkBuckets(only?: string[]): Promise<void>;
}

/** The adapter over `client`; `buckets` maps every logical bucket to its real one. */
export function createS3Storage(client: S3Client, buckets: Record<string, string>): S3Storage {
  /** The real bucket and key of an object, checked before any request. */
  const locate = (bucket: string, key: string) => {
    checkedObjectAddress(bucket, key);
    const real = buckets[bucket];
    if (real === undefined) {
      // Only an explicit STORAGE_S3_BUCKETS can leave one out (the demo's, where no node seeds it).
      throw new Error(`No S3 bucket is mapped for the bucket ${bucket}: add ${bucket}=<real bucket> to STORAGE_S3_BUCKETS (docs/deploy.md, "The buckets")`);
    }
    return { Bucket: real, Key: key };
  };

  return {
    async put(bucket, key, body, options) {
      const address = locate(bucket, key);
      let byteSize = 0;
      let bodyFailure: { error: unknown } | undefined;
      async function* counted() {
        try {
          for await (const chunk of body) {
            byteSize += chunk.byteLength;
            yield chunk;
          }
        } catch (error) {
          bodyFailure = { error };
          throw error;
        }
      }
      const chunks = counted();
      const upload = new Upload({
        client,
        // A web stream, not a Node Readable: with a Readable, lib-storage reports a failed request (a
        // missing bucket, say) as the AbortError of the stream its other part uploader was reading.
        params: { ...address, Body: webStream(chunks), ContentType: options?.contentType },
        partSize: S3_PART_BYTES,
        queueSize: S3_PARTS_IN_FLIGHT,
        leavePartsOnError: false, // a failed upload is aborted: its parts are removed
      });
      try {
        await upload.done();
        return { byteSize };
      } catch (error) {
        if (!bodyFailure) throw error;
        // Another error after the body's: most likely the abort of the multipart upload failed (s3rver has
        // none); the bucket's AbortIncompleteMultipartUpload lifecycle rule removes what it left.
        if (error !== bodyFailure.error) logger.warn(`The multipart upload of ${key} in ${address.Bucket} also failed after its body did`, error);
        throw bodyFailure.error;
      } finally {
        // An upload that failed stops reading: the body is closed, not left waiting.
        chunks.return(undefined).catch(() => {});
      }
    },

    async get(bucket, key) {
      const address = locate(bucket, key);
      try {
        const reply = await client.send(new GetObjectCommand(address));
        if (!reply.Body) throw new Error(`S3 answered without a body for ${key} in ${address.Bucket}`);
        return reply.Body.transformToWebStream() as ReadableStream<Uint8Array>;
      } catch (error) {
        if (error instanceof Error && (error.name === "NoSuchKey" || error.name === "NotFound")) throw new ObjectNotFoundError(bucket, key);
        throw error;
      }
    },

    async delete(bucket, key) {
      await client.send(new DeleteObjectCommand(locate(bucket, key))); // S3 answers 204 for a missing object too
    },

    async checkBuckets(only) {
      for (const [logical, real] of Object.entries(buckets)) {
        if (only && !only.includes(logical)) continue;
        try {
          await client.send(new HeadBucketCommand({ Bucket: real }));
        } catch (error) {
          const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
          throw new ConfigError(
            `The S3 bucket ${real} (for ${logical}) cannot be used: ${reason}. Markbook does not create buckets: create it ` +
              "(with an AbortIncompleteMultipartUpload lifecycle rule), or map STORAGE_S3_BUCKETS or STORAGE_S3_BUCKET_PREFIX to an existing one.",
          );
        }
      }
    },
  };
}

/** `chunks` as a web stream, pulled one chunk at a time; the iterator's error becomes the stream's. */
function webStream(chunks: AsyncIterator<Uint8Array>): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
  });
}
