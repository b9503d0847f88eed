/**
 * Temporary files left by a crash (issue 14, item 7): a process killed mid-upload or mid-snapshot leaves
 * `<object>.tmp-<hex>` files in the storage folder and spooled speech uploads in the temporary folder.
 * The server's start removes them and says so in the log; objects and live processes' files stay.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { Readable } from "node:stream";
import { afterAll, describe, expect, it, vi } from "vitest";
import { readAudioUpload, removeSpoolLeftovers } from "../server/speech/audio-upload";
import { startMarkbook } from "../server/startup";
import { removeTemporaryLeftovers } from "../server/storage/local";

// A data folder and a system temporary folder of this file's own, with info logging, set before
// anything reads the configuration. The embedded database: this process holds the DATA_DIR lock.
const folders = vi.hoisted(() => {
  const base = `${process.env.TMPDIR ?? "/tmp"}/markbook-leftovers-${process.pid}-${Date.now()}`;
  process.env.DATA_DIR = `${base}/data`;
  process.env.TMPDIR = `${base}/tmp`;
  process.env.LOG_LEVEL = "info";
  process.env.SEED_DEMO = "false";
  delete process.env.DATABASE_URL;
  return { base, data: `${base}/data`, tmp: `${base}/tmp` };
});
afterAll(() => fs.rmSync(folders.base, { recursive: true, force: true }));

function writeFile(file: string, bytes: number) {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, Buffer.alloc(bytes, 7));
  return file;
}

/** The pid of a process that has ended. */
function deadPid() {
  const child = spawnSync(process.execPath, ["-e", ""]);
  return child.pid;
}

describe("leftovers of a crash at the server's start", () => {
  it("removes temporary storage files and dead processes' speech spools, logs how many and how many bytes, keeps the rest", async () => {
    const storage = path.join(folders.data, "storage");
    const scan = writeFile(path.join(storage, "cc.exam.submissions", "exam-submissions", "b1", "s1.pdf"), 1000);
    const leftovers = [
      writeFile(`${scan}.tmp-0123456789ab`, 300_000),
      writeFile(path.join(storage, "cc.public.snapshots", "Lesson", "l1.tmp-abcdef012345"), 20_000),
    ];
    // Not of the temporary shape: an object (or anything else) must never be taken for one.
    const lookalike = writeFile(path.join(storage, "cc.public.snapshots", "Lesson", "notes.tmp-draft"), 10);
    const deadSpool = path.join(folders.tmp, `markbook-speech-${deadPid()}-AbC123`);
    writeFile(path.join(deadSpool, "upload-0123456789ab"), 4_000);
    const liveSpool = path.join(folders.tmp, `markbook-speech-${process.ppid}-XyZ789`);
    const liveUpload = writeFile(path.join(liveSpool, "upload-ba9876543210"), 50);

    const logged: string[] = [];
    const stderr = vi.spyOn(process.stderr, "write").mockImplementation((chunk: string | Uint8Array) => {
      logged.push(String(chunk));
      return true;
    });
    try {
      const started = await startMarkbook();
      await started.close();
    } finally {
      stderr.mockRestore();
    }

    for (const file of leftovers) expect(fs.existsSync(file)).toBe(false);
    expect(fs.existsSync(deadSpool)).toBe(false);
    expect(fs.readFileSync(scan)).toEqual(Buffer.alloc(1000, 7));
    expect(fs.existsSync(lookalike)).toBe(true);
    expect(fs.existsSync(liveUpload)).toBe(true);
    const line = logged.find((text) => text.includes("temporary files"));
    expect(line).toMatch(
      /INFO +Removed 3 temporary files \(324000 bytes\) left by an interrupted upload or snapshot: 2 in the storage folder, 1 spooled speech upload\n$/,
    );
  }, 120_000);

  it("in a storage folder shared with other processes, removes only temporary files not written to for the given age", async () => {
    const root = path.join(folders.base, "shared-storage");
    const stale = writeFile(path.join(root, "bucket", "a.pdf.tmp-00000000000a"), 100);
    const inProgress = writeFile(path.join(root, "bucket", "b.pdf.tmp-00000000000b"), 200);
    const twoHoursAgo = new Date(Date.now() - 2 * 60 * 60 * 1000);
    fs.utimesSync(stale, twoHoursAgo, twoHoursAgo);

    expect(await removeTemporaryLeftovers(root, { olderThanMs: 60 * 60 * 1000 })).toEqual({ files: 1, bytes: 100 });
    expect(fs.existsSync(stale)).toBe(false);
    expect(fs.existsSync(inProgress)).toBe(true);
  });

  it("recognises the spool folder a real speech upload makes (here its own process's, as at start)", async () => {
    const boundary = "leftover";
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\n${"x".repeat(500)}\r\n--${boundary}--\r\n`,
    );
    const upload = await readAudioUpload({ contentType: `multipart/form-data; boundary=${boundary}`, contentLength: null, body: Readable.from([body]) }, 10_000);
    expect(path.dirname(upload.file!.path).startsWith(folders.tmp)).toBe(true);
    // The process "crashes" here: cleanup() is never called.
    expect(await removeSpoolLeftovers()).toEqual({ files: 1, bytes: 500 });
    expect(fs.existsSync(upload.file!.path)).toBe(false);
  });
});
