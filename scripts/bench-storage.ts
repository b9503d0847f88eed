/**
 * bench:storage — a 50 MB scan written and read through each adapter of the storage port, side by side:
 * the local folder and S3 (s3rver, an S3 protocol server, in a child process on loopback, so that this
 * process's memory is the adapter's alone). Figures: put and get MB/s, and the peak RSS growth of this
 * process during the put. Each adapter runs twice, in the order L S S L. Figures go to the
 * `bench:storage` section of docs/benchmarks.md.
 */
import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import { createRequire } from "node:module";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { CreateBucketCommand } from "@aws-sdk/client-s3";
import { createLocalStorage } from "../server/storage/local";
import type { ObjectStorage } from "../server/storage/object-storage";
import { S3_PARTS_IN_FLIGHT, S3_PART_BYTES, createS3Client, createS3Storage } from "../server/storage/s3";
import { writeBenchmarkSection } from "./benchmarks-doc";

const SCAN_BYTES = 50 * 1024 * 1024;
const CHUNK_BYTES = 64 * 1024;
const BUCKET = "bench.scans";
const MB = 1024 * 1024;

interface Figures {
  putMbPerSecond: number;
  getMbPerSecond: number;
  rssGrowthMb: number;
}

async function measure(storage: ObjectStorage, key: string): Promise<Figures> {
  const chunk = new Uint8Array(CHUNK_BYTES).fill(0x20);
  global.gc?.();
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  async function* scan() {
    for (let sent = 0; sent < SCAN_BYTES; sent += CHUNK_BYTES) {
      peak = Math.max(peak, process.memoryUsage().rss);
      yield chunk;
    }
  }
  const putStart = performance.now();
  const { byteSize } = await storage.put(BUCKET, key, scan(), { contentType: "application/pdf" });
  const putSeconds = (performance.now() - putStart) / 1000;
  peak = Math.max(peak, process.memoryUsage().rss);
  if (byteSize !== SCAN_BYTES) throw new Error(`stored ${byteSize} bytes, not ${SCAN_BYTES}`);

  const getStart = performance.now();
  const reader = (await storage.get(BUCKET, key)).getReader();
  let read = 0;
  for (let next = await reader.read(); !next.done; next = await reader.read()) read += next.value.byteLength;
  const getSeconds = (performance.now() - getStart) / 1000;
  if (read !== SCAN_BYTES) throw new Error(`read ${read} bytes, not ${SCAN_BYTES}`);
  await storage.delete(BUCKET, key);
  return { putMbPerSecond: SCAN_BYTES / MB / putSeconds, getMbPerSecond: SCAN_BYTES / MB / getSeconds, rssGrowthMb: (peak - baseline) / MB };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, "127.0.0.1", () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on("error", reject);
  });
}

/** s3rver in a child process; resolves once it accepts connections. */
async function startS3rver(directory: string): Promise<{ endpoint: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(process.execPath, [createRequire(import.meta.url).resolve("s3rver/bin/s3rver.js"), "-d", directory, "-a", "127.0.0.1", "-p", String(port), "-s", "--no-vhost-buckets"], {
    stdio: "ignore",
  });
  for (let attempt = 0; ; attempt++) {
    const connected = await new Promise<boolean>((resolve) => {
      const socket = net
        .connect(port, "127.0.0.1", () => {
          socket.end();
          resolve(true);
        })
        .on("error", () => resolve(false));
    });
    if (connected) break;
    if (attempt >= 100 || child.exitCode !== null) throw new Error("s3rver did not start");
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { endpoint: `http://127.0.0.1:${port}`, child };
}

async function main() {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-bench-storage-"));
  const s3rver = await startS3rver(path.join(folder, "s3rver"));
  const client = createS3Client({ endpoint: s3rver.endpoint, region: "us-east-1", credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" }, forcePathStyle: true });
  try {
    await client.send(new CreateBucketCommand({ Bucket: BUCKET }));
    const adapters = { local: createLocalStorage(path.join(folder, "local")), s3: createS3Storage(client, { [BUCKET]: BUCKET }) };
    const runs: Record<keyof typeof adapters, Figures[]> = { local: [], s3: [] };
    for (const [index, name] of (["local", "s3", "s3", "local"] as const).entries()) {
      const figures = await measure(adapters[name], `scans/run-${index}.pdf`);
      console.log(
        `${name}: put ${figures.putMbPerSecond.toFixed(1)} MB/s, get ${figures.getMbPerSecond.toFixed(1)} MB/s, peak RSS growth ${figures.rssGrowthMb.toFixed(1)} MB`,
      );
      runs[name].push(figures);
    }
    const row = (label: string, figures: Figures[]) =>
      `| ${label} | ${figures.map((f) => f.putMbPerSecond.toFixed(1)).join(" · ")} | ${figures.map((f) => f.getMbPerSecond.toFixed(1)).join(" · ")} | ${figures.map((f) => f.rssGrowthMb.toFixed(1)).join(" · ")} |`;
    writeBenchmarkSection(
      "bench:storage",
      [
        `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}; load average at the end ${os.loadavg().map((value) => value.toFixed(1)).join(" / ")}.`,
        "",
        "| adapter (two runs each) | 50 MB put, MB/s | 50 MB get, MB/s | peak RSS growth during the put, MB |",
        "| --- | --- | --- | --- |",
        row("local folder (DATA_DIR/storage)", runs.local),
        row(`S3 on s3rver over loopback (parts of ${S3_PART_BYTES / MB} MB, ${S3_PARTS_IN_FLIGHT} in flight)`, runs.s3),
      ].join("\n"),
      [
        "## bench:storage — a 50 MB scan through each storage adapter",
        "",
        "`npm run bench:storage`: a 50 MB body written and read back through the local folder and through the S3",
        "adapter (s3rver in a child process on loopback; a real S3 adds the network). Target: the S3 put's peak RSS",
        "growth bounded by the parts in flight, not by the object's size.",
      ].join("\n"),
    );
  } finally {
    client.destroy();
    s3rver.child.kill();
    fs.rmSync(folder, { recursive: true, force: true });
  }
}

await main();
