import { spawn } from "node:child_process";
import fs from "node:fs";
import { AppError } from "../errors";

/** Whisper's input: 16 kHz mono float32. */
export const SAMPLE_RATE = 16_000;

export const ACCEPTED_FORMATS = ["flac", "mp3", "mp4", "mpeg", "mpga", "m4a", "ogg", "wav", "webm"] as const;
/** What the bytes say the container is (mp3/mpeg/mpga share "mp3"; mp4/m4a share "mp4"). */
export type SniffedFormat = "flac" | "mp3" | "mp4" | "mpeg" | "ogg" | "wav" | "webm" | "aac";

const ascii = (bytes: Uint8Array, start: number, end: number) => Buffer.from(bytes.subarray(start, end)).toString("latin1");

/** The container from the first bytes of the file, or null: the file name and the client's type are not trusted. */
export function sniffAudioFormat(head: Uint8Array): SniffedFormat | null {
  if (head.length < 4) return null;
  if (ascii(head, 0, 4) === "fLaC") return "flac";
  if (ascii(head, 0, 4) === "OggS") return "ogg";
  if (ascii(head, 0, 4) === "RIFF" && head.length >= 12 && ascii(head, 8, 12) === "WAVE") return "wav";
  if (head[0] === 0x1a && head[1] === 0x45 && head[2] === 0xdf && head[3] === 0xa3) return "webm"; // EBML (WebM/Matroska)
  if (head.length >= 8 && ascii(head, 4, 8) === "ftyp") return "mp4"; // ISO BMFF: mp4, m4a
  if (ascii(head, 0, 3) === "ID3") return "mp3";
  if (head[0] === 0x00 && head[1] === 0x00 && head[2] === 0x01 && (head[3] === 0xba || head[3] === 0xb3)) return "mpeg"; // MPEG-PS
  if (head[0] === 0xff && ((head[1]! & 0xf6) === 0xf0)) return "aac"; // ADTS AAC (layer bits 00)
  if (head[0] === 0xff && (head[1]! & 0xe0) === 0xe0 && (head[1]! & 0x06) !== 0) return "mp3"; // MPEG audio frame sync
  return null;
}

export async function readFileHead(filePath: string, length = 64): Promise<Uint8Array> {
  const handle = await fs.promises.open(filePath, "r");
  try {
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

export const invalidFileFormat = (detail: string) =>
  new AppError(
    "unprocessable",
    `Invalid file format. ${detail} Supported formats: ${ACCEPTED_FORMATS.join(", ")}.`,
    "file",
    "invalid_file_format",
  );

/**
 * Decodes a file to 16 kHz mono float32 with ffmpeg. A file, not stdin: mp4/m4a keep their index
 * (`moov`) at the end, which a pipe cannot seek to. Rejects with 422 when ffmpeg cannot decode it.
 */
export function decodeAudioFile(
  ffmpegPath: string,
  filePath: string,
  options: { maxSeconds?: number; signal?: AbortSignal } = {},
): Promise<Float32Array> {
  return new Promise((resolve, reject) => {
    const args = ["-nostdin", "-hide_banner", "-loglevel", "error", "-i", filePath, "-vn", "-map", "0:a:0"];
    if (options.maxSeconds) args.push("-t", String(options.maxSeconds + 1));
    args.push("-f", "f32le", "-acodec", "pcm_f32le", "-ac", "1", "-ar", String(SAMPLE_RATE), "pipe:1");
    const child = spawn(ffmpegPath, args, { stdio: ["ignore", "pipe", "pipe"], signal: options.signal });
    const chunks: Buffer[] = [];
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => chunks.push(chunk));
    child.stderr.on("data", (chunk: Buffer) => {
      if (stderr.length < 4000) stderr += chunk.toString();
    });
    child.on("error", (error: NodeJS.ErrnoException) => {
      if (error.name === "AbortError") reject(error);
      else reject(new AppError("internal", `The audio decoder (ffmpeg at ${ffmpegPath}) could not be started: ${error.message}`));
    });
    child.on("close", (code) => {
      if (code !== 0) {
        const reason = stderr.trim().split("\n").at(-1) ?? "";
        reject(invalidFileFormat(`The audio could not be decoded${reason ? ` (${reason.replace(/^.*?: /, "")})` : ""}.`));
        return;
      }
      // Copy the chunks straight into one aligned buffer of whole samples (no intermediate concat).
      const total = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
      const samples = new Float32Array(Math.floor(total / 4));
      const target = new Uint8Array(samples.buffer);
      let offset = 0;
      for (const chunk of chunks) {
        const room = target.length - offset;
        if (room <= 0) break;
        target.set(chunk.length <= room ? chunk : chunk.subarray(0, room), offset);
        offset += Math.min(chunk.length, room);
      }
      chunks.length = 0;
      if (options.maxSeconds && samples.length > options.maxSeconds * SAMPLE_RATE) {
        reject(new AppError("invalid", `The audio is longer than the maximum of ${options.maxSeconds} seconds.`, "file"));
        return;
      }
      resolve(samples);
    });
  });
}

/** The peak amplitude (-60 dBFS) at or below which audio counts as silence. */
const SILENCE_PEAK = 1e-3;

/**
 * Silence is not decoded, neither a whole upload (answered without the model) nor one 30 s window of
 * it: Whisper would only hallucinate on it.
 */
export function isSilent(samples: Float32Array): boolean {
  for (let i = 0; i < samples.length; i++) if (Math.abs(samples[i]!) > SILENCE_PEAK) return false;
  return true;
}

/** Is the ffmpeg binary usable? Runs `ffmpeg -version` (cached by the caller). */
export function probeFfmpeg(ffmpegPath: string): Promise<{ ok: true; version: string } | { ok: false; reason: string }> {
  return new Promise((resolve) => {
    let output = "";
    let child;
    try {
      child = spawn(ffmpegPath, ["-version"], { stdio: ["ignore", "pipe", "ignore"] });
    } catch (error) {
      resolve({ ok: false, reason: `ffmpeg at ${ffmpegPath} cannot run: ${(error as Error).message}` });
      return;
    }
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()));
    child.on("error", (error) => resolve({ ok: false, reason: `ffmpeg at ${ffmpegPath} cannot run: ${error.message}` }));
    child.on("close", (code) =>
      resolve(code === 0 ? { ok: true, version: output.split("\n")[0] ?? "" } : { ok: false, reason: `ffmpeg at ${ffmpegPath} exited with ${code}` }),
    );
  });
}
