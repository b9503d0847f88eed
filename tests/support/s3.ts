/**
 * An S3 service for tests: s3rver (an S3 protocol server from npm) on a free port of localhost, storing in
 * a temporary folder of its own. Its credentials are s3rver's fixed pair; requests are signed and checked.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { CreateBucketCommand, type S3Client } from "@aws-sdk/client-s3";
import S3rver from "s3rver";
import type { ObjectStorage } from "../../server/storage/object-storage";
import { createS3Client, createS3Storage } from "../../server/storage/s3";

export interface TestS3 {
  endpoint: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** The STORAGE_* variables that point Markbook at this server (logical bucket names unchanged). */
  env: Record<string, string>;
  /** A client of this server (closed by `stop`). */
  client: S3Client;
  /** The S3 adapter over this server with the given mapping (logical -> real bucket). */
  storage(buckets: Record<string, string>): ObjectStorage;
  /** Creates the buckets (real names); existing ones are kept. */
  createBuckets(names: string[]): Promise<void>;
  /** Bytes that have reached the server over its sockets since it started (requests, headers included). */
  bytesReceived(): number;
  stop(): Promise<void>;
}

export async function startTestS3(): Promise<TestS3> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-s3rver-"));
  const server = new S3rver({ address: "127.0.0.1", port: 0, directory, silent: true, vhostBuckets: false });
  const { port } = await server.run();
  let received = 0;
  server.httpServer!.on("connection", (socket) => socket.on("data", (chunk: Buffer) => (received += chunk.byteLength)));
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };
  const region = "us-east-1";
  const client = createS3Client({ endpoint, region, credentials, forcePathStyle: true });
  return {
    endpoint,
    region,
    ...credentials,
    env: {
      STORAGE_DRIVER: "s3",
      STORAGE_S3_ENDPOINT: endpoint,
      STORAGE_S3_REGION: region,
      STORAGE_S3_ACCESS_KEY_ID: credentials.accessKeyId,
      STORAGE_S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      STORAGE_S3_FORCE_PATH_STYLE: "true",
    },
    client,
    storage: (buckets) => createS3Storage(client, buckets),
    async createBuckets(names) {
      for (const name of names) {
        try {
          await client.send(new CreateBucketCommand({ Bucket: name }));
        } catch (error) {
          if (!(error instanceof Error && ["BucketAlreadyOwnedByYou", "BucketAlreadyExists"].includes(error.name))) throw error;
        }
      }
    },
    bytesReceived: () => received,
    async stop() {
      client.destroy();
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
