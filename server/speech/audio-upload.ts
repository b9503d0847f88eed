import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { pipeline } from "node:stream/promises";
import { isAlive } from "../db/data-dir-lock";
import { AppError } from "../errors";
import { type MultipartRequest, type MultipartRules, readMultipartForm } from "../http/multipart";
import { formatByteSize } from "../../lib/rules/byte-size";
import { AUDIO_FILE_FIELD } from "./transcription-form";

interface UploadedFile {
  path: string;
  filename: string;
  contentType: string;
  size: number;
}

export interface AudioUpload {
  /** Text fields by name; repeated names (timestamp_granularities[]) keep every value. */
  fields: Map<string, string[]>;
  file: UploadedFile | null;
  /** Deletes the temporary file; safe to call twice. */
  cleanup(): Promise<void>;
}

const MAX_FIELD_BYTES = 64 * 1024;
/**
 * Room for the fields and part headers besides the file (the reader's `formOverheadBytes`). A parallel of
 * the exam's PDF_FORM_OVERHEAD_BYTES (server/exam/pdf-upload.ts), larger because a speech form carries
 * text fields of up to 64 KB (a prompt, repeated options) where a scan's are 1 KB.
 */
const SPEECH_FORM_OVERHEAD_BYTES = 1024 * 1024;

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

const fileTooLarge = (maxBytes: number) =>
  new AppError(
    "too_large",
    `The file is larger than the maximum of ${formatByteSize(maxBytes)}.`,
    "file",
    "file_too_large",
  );

/** The speech form's rules for the shared reader: the audio in `file`, text fields of up to 64 KB. */
const speechFormRules = (maxFileBytes: number): MultipartRules => ({
  fileField: AUDIO_FILE_FIELD,
  maxFileBytes,
  formOverheadBytes: SPEECH_FORM_OVERHEAD_BYTES,
  maxFieldBytes: MAX_FIELD_BYTES,
  notMultipart: () => new AppError("invalid", "The body must be multipart/form-data with the audio in the 'file' field.", "file"),
  tooLarge: () => fileTooLarge(maxFileBytes),
});

/**
 * Reads a /v1/audio upload with the shared multipart reader (server/http/multipart.ts): text fields into
 * memory, the `file` part into a temporary file for ffmpeg. The first byte past `maxFileBytes` stops
 * the read with 413 file_too_large; the rest of the body is never read. On any refusal the temporary
 * file is gone before the error is thrown.
 */
export async function readAudioUpload(request: MultipartRequest, maxFileBytes: number): Promise<AudioUpload> {
  let directory: string | null = null;
  const cleanup = async () => {
    if (directory) await fs.promises.rm(directory, { recursive: true, force: true });
    directory = null;
  };
  try {
    const form = await readMultipartForm(request, speechFormRules(maxFileBytes), async (file): Promise<UploadedFile> => {
      directory ??= await fs.promises.mkdtemp(path.join(os.tmpdir(), `${SPOOL_PREFIX}${process.pid}-`));
      const filePath = path.join(directory, `upload-${crypto.randomBytes(6).toString("hex")}`);
      const spool = fs.createWriteStream(filePath, { flags: "wx" });
      await pipeline(file.body, spool);
      return { path: filePath, filename: file.filename, contentType: file.contentType ?? "application/octet-stream", size: spool.bytesWritten };
    });
    return { ...form, cleanup };
  } catch (error) {
    await cleanup();
    throw error;
  }
}
