import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { isAlive } from "../db/data-dir-lock";
import { AppError } from "../errors";
import { partHeaderEnd } from "../http/multipart-part-headers";

export interface UploadedFile {
  path: string;
  filename: string;
  contentType: string;
  size: number;
}

export interface MultipartUpload {
  /** Text fields by name; repeated names (timestamp_granularities[]) keep every value. */
  fields: Map<string, string[]>;
  file: UploadedFile | null;
  /** Deletes the temporary file; safe to call twice. */
  cleanup(): Promise<void>;
}

const MAX_FIELD_BYTES = 64 * 1024;
const MAX_FIELDS = 64;
/**
 * Room for the fields and part headers besides the file, when judging Content-Length up front (the
 * parser bounds each field and the file while reading). A parallel of the exam's PDF_FORM_OVERHEAD_BYTES
 * (server/exam/pdf-upload.ts), larger because a speech form carries text fields of up to 64 KB (a prompt,
 * repeated options) where a scan's are 1 KB.
 */
export const SPEECH_FORM_OVERHEAD_BYTES = 1024 * 1024;

/**
 * Uploads are spooled to `markbook-speech-<pid>-<random>/` in the system's temporary folder (ffmpeg reads
 * them from there); the pid says which process owns the folder, as the system's temporary folder may be
 * shared with other Markbook processes.
 */
const SPOOL_PREFIX = "markbook-speech-";
const spoolName = /^markbook-speech-(\d+)-[A-Za-z0-9]{6}$/;

/**
 * Removes the spool folders of processes that ended without cleaning up (killed mid-request). Run at
 * start, before this process spools anything: a folder named with this process's own pid is then a
 * leftover of an earlier process that had the same pid (common for pid 1 in containers).
 */
export async function removeSpoolLeftovers(temporaryRoot = os.tmpdir()): Promise<{ files: number; bytes: number }> {
  const removed = { files: 0, bytes: 0 };
  const entries = await fs.promises.readdir(temporaryRoot, { withFileTypes: true }).catch(() => []);
  for (const entry of entries) {
    const owner = spoolName.exec(entry.name)?.[1];
    if (!entry.isDirectory() || owner === undefined) continue;
    if (Number(owner) !== process.pid && isAlive(Number(owner))) continue;
    const folder = path.join(temporaryRoot, entry.name);
    for (const file of await fs.promises.readdir(folder, { withFileTypes: true }).catch(() => [])) {
      const stat = file.isFile() ? await fs.promises.stat(path.join(folder, file.name)).catch(() => null) : null;
      if (!stat) continue;
      removed.files += 1;
      removed.bytes += stat.size;
    }
    await fs.promises.rm(folder, { recursive: true, force: true });
  }
  return removed;
}

export function multipartBoundary(contentType: string | undefined): string | null {
  if (!contentType || !/^multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
  const match = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  return boundary && boundary.length <= 70 ? boundary : null;
}

export const fileTooLarge = (maxBytes: number) =>
  new AppError(
    "too_large",
    `The file is larger than the maximum of ${maxBytes} bytes (${(maxBytes / 1024 / 1024).toFixed(0)} MiB).`,
    "file",
    "file_too_large",
  );

function parsePartHeaders(raw: string) {
  const headers = new Map<string, string>();
  for (const line of raw.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get("content-disposition") ?? "";
  const param = (name: string) => {
    const match = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${name}=([^;\\s]+)`, "i").exec(disposition);
    const value = match?.[1] ?? match?.[2];
    return value === undefined ? undefined : value.replace(/\\(.)/g, "$1");
  };
  return { name: param("name"), filename: param("filename"), contentType: headers.get("content-type") ?? "application/octet-stream" };
}

/**
 * Streams a multipart/form-data body: text fields into memory (small, bounded), the part named
 * `fileField` into a temporary file. The size limit is enforced while reading: the first byte past
 * `maxFileBytes` stops the parse with 413, the rest of the body is never read.
 */
export async function parseMultipartUpload(
  body: AsyncIterable<Buffer | Uint8Array | string>,
  options: { boundary: string; maxFileBytes: number; fileField?: string },
): Promise<MultipartUpload> {
  const fileField = options.fileField ?? "file";
  const delimiter = Buffer.from(`\r\n--${options.boundary}`);
  const fields = new Map<string, string[]>();
  let file: UploadedFile | null = null;
  let directory: string | null = null;
  const cleanup = async () => {
    if (directory) await fs.promises.rm(directory, { recursive: true, force: true });
    directory = null;
  };

  type State = "preamble" | "afterDelimiter" | "headers" | "body" | "done";
  let state: State = "preamble";
  // A virtual CRLF first, so that the first delimiter looks like every other one.
  let pending: Buffer = Buffer.from("\r\n");
  let part: { name?: string; filename?: string; contentType: string } | null = null;
  let fieldChunks: Buffer[] = [];
  let fieldBytes = 0;
  let fileStream: fs.WriteStream | null = null;
  let fieldCount = 0;

  const writeFile = (chunk: Buffer) =>
    new Promise<void>((resolve, reject) => {
      fileStream!.write(chunk, (error) => (error ? reject(error) : resolve()));
    });

  const emit = async (data: Buffer) => {
    if (data.length === 0 || !part) return;
    if (fileStream && file) {
      file.size += data.length;
      if (file.size > options.maxFileBytes) throw fileTooLarge(options.maxFileBytes);
      await writeFile(data);
    } else {
      fieldBytes += data.length;
      if (fieldBytes > MAX_FIELD_BYTES) throw new AppError("invalid", `The field '${part.name}' is too long.`, part.name);
      fieldChunks.push(data);
    }
  };

  const finishPart = async () => {
    if (!part) return;
    if (fileStream) {
      const stream = fileStream;
      await new Promise<void>((resolve, reject) => stream.end((error?: Error | null) => (error ? reject(error) : resolve())));
      fileStream = null;
    } else if (part.name !== undefined) {
      const values = fields.get(part.name) ?? [];
      values.push(Buffer.concat(fieldChunks).toString("utf8"));
      fields.set(part.name, values);
    }
    part = null;
    fieldChunks = [];
    fieldBytes = 0;
  };

  const startPart = async (rawHeaders: string) => {
    const headers = parsePartHeaders(rawHeaders);
    part = headers;
    if (++fieldCount > MAX_FIELDS) throw new AppError("invalid", "Too many form fields.");
    if (headers.name === fileField && headers.filename !== undefined) {
      if (file) throw new AppError("invalid", "Only one file may be uploaded.", fileField);
      directory ??= await fs.promises.mkdtemp(path.join(os.tmpdir(), `${SPOOL_PREFIX}${process.pid}-`));
      const filePath = path.join(directory, `upload-${crypto.randomBytes(6).toString("hex")}`);
      file = { path: filePath, filename: headers.filename, contentType: headers.contentType, size: 0 };
      fileStream = fs.createWriteStream(filePath, { flags: "wx" });
      await new Promise<void>((resolve, reject) => {
        fileStream!.once("open", () => resolve());
        fileStream!.once("error", reject);
      });
    }
  };

  try {
    for await (const chunk of body) {
      if (state === "done") continue;
      pending = pending.length === 0 ? Buffer.from(chunk) : Buffer.concat([pending, Buffer.from(chunk)]);
      let progressed = true;
      while (progressed && state !== "done") {
        progressed = false;
        if (state === "preamble" || state === "body") {
          const index = pending.indexOf(delimiter);
          if (index >= 0) {
            if (state === "body") await emit(pending.subarray(0, index));
            pending = pending.subarray(index + delimiter.length);
            if (state === "body") await finishPart();
            state = "afterDelimiter";
            progressed = true;
          } else {
            // Keep a tail that could be the start of a delimiter split across chunks.
            const keep = Math.min(pending.length, delimiter.length - 1);
            if (state === "body") await emit(pending.subarray(0, pending.length - keep));
            pending = pending.subarray(pending.length - keep);
          }
        } else if (state === "afterDelimiter") {
          if (pending.length < 2) break;
          if (pending[0] === 0x2d && pending[1] === 0x2d) {
            state = "done";
          } else {
            const lineEnd = pending.indexOf("\r\n");
            if (lineEnd < 0) {
              if (pending.length > 256) throw new AppError("invalid", "Malformed multipart body.");
              break;
            }
            pending = pending.subarray(lineEnd + 2); // transport padding, then CRLF
            state = "headers";
            progressed = true;
          }
        } else if (state === "headers") {
          const end = partHeaderEnd(pending);
          if (end < 0) break;
          await startPart(pending.subarray(0, end).toString("utf8"));
          pending = pending.subarray(end + 4);
          state = "body";
          progressed = true;
        }
      }
    }
    if (state !== "done") throw new AppError("invalid", "The multipart body ended before its closing boundary.");
    return { fields, file, cleanup };
  } catch (error) {
    const stream = fileStream as fs.WriteStream | null;
    stream?.destroy();
    await cleanup();
    throw error;
  }
}
