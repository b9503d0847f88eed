import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { AppError } from "../server/errors";
import { ACCEPTED_FORMATS, SAMPLE_RATE, decodeAudioFile, isSilent, probeFfmpeg, sniffAudioFormat } from "../server/speech/audio";
import { bundledFfmpegPath } from "../server/speech/config";
import { multipartBoundary } from "../server/http/multipart";
import { readAudioUpload } from "../server/speech/audio-upload";

const fixtures = path.join(import.meta.dirname, "fixtures/audio");
const ffmpeg = process.env.FFMPEG_PATH || bundledFfmpegPath();
const read = (name: string) => fs.readFileSync(path.join(fixtures, name));

function correlation(a: Float32Array, b: Float32Array): number {
  const n = Math.min(a.length, b.length);
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < n; i++) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return ab / Math.sqrt(aa * bb);
}

/** Loudness envelope in 20 ms frames: lossy codecs (Opus above all) keep it while changing the phase. */
function envelope(samples: Float32Array): Float32Array {
  const frame = SAMPLE_RATE / 50;
  const result = new Float32Array(Math.floor(samples.length / frame));
  for (let f = 0; f < result.length; f++) {
    let sum = 0;
    for (let i = f * frame; i < (f + 1) * frame; i++) sum += samples[i]! * samples[i]!;
    result[f] = Math.sqrt(sum / frame);
  }
  return result;
}

/** Best envelope correlation over shifts of up to 100 ms: codecs add a little delay. */
function bestCorrelation(reference: Float32Array, other: Float32Array): number {
  const a = envelope(reference);
  const b = envelope(other);
  let best = -1;
  for (let shift = 0; shift <= 5; shift++) {
    best = Math.max(best, correlation(a, b.subarray(shift)), correlation(a.subarray(shift), b));
  }
  return best;
}

async function tempFile(bytes: Uint8Array | string): Promise<string> {
  const directory = await fs.promises.mkdtemp(path.join(os.tmpdir(), "markbook-audio-test-"));
  const file = path.join(directory, "upload.mp3");
  await fs.promises.writeFile(file, bytes);
  return file;
}

describe("audio decoding with the bundled ffmpeg", () => {
  it("has a working ffmpeg binary from npm", async () => {
    expect(await probeFfmpeg(ffmpeg)).toMatchObject({ ok: true });
    expect((await probeFfmpeg("/nonexistent/ffmpeg")).ok).toBe(false);
  });

  it("decodes a stereo 44.1 kHz tone to 16 kHz mono at the right length, frequency and level", async () => {
    const samples = await decodeAudioFile(ffmpeg, path.join(fixtures, "tone-440hz-44k1-stereo.wav"));
    expect(Math.abs(samples.length - 0.5 * SAMPLE_RATE)).toBeLessThanOrEqual(16);
    // Frequency from zero crossings in the steady middle: 440 Hz is 880 crossings per second.
    const middle = samples.subarray(1000, 7000);
    let crossings = 0;
    for (let i = 1; i < middle.length; i++) if (middle[i - 1]! < 0 !== middle[i]! < 0) crossings++;
    const frequency = crossings / 2 / (middle.length / SAMPLE_RATE);
    expect(frequency).toBeGreaterThan(430);
    expect(frequency).toBeLessThan(450);
    const peak = middle.reduce((max, value) => Math.max(max, Math.abs(value)), 0);
    expect(peak).toBeGreaterThan(0.45); // peak 0.5, and two equal channels are averaged, not summed
    expect(peak).toBeLessThan(0.55);
  });

  it.each(ACCEPTED_FORMATS)("decodes the %s fixture to the same audio as the WAV reference", async (format) => {
    const reference = await decodeAudioFile(ffmpeg, path.join(fixtures, "speech.wav"));
    const samples = await decodeAudioFile(ffmpeg, path.join(fixtures, `speech.${format}`));
    expect(sniffAudioFormat(read(`speech.${format}`).subarray(0, 64))).not.toBeNull();
    expect(Math.abs(samples.length - reference.length)).toBeLessThan(0.15 * SAMPLE_RATE);
    expect(bestCorrelation(reference, samples)).toBeGreaterThan(0.95);
    // and not just any audio: the tone's envelope does not match the speech
    const tone = await decodeAudioFile(ffmpeg, path.join(fixtures, "tone-440hz-44k1-stereo.wav"));
    expect(bestCorrelation(reference.subarray(0, tone.length), tone)).toBeLessThan(0.9);
  });

  it("sniffs containers from bytes and refuses text, whatever the file name", () => {
    expect(sniffAudioFormat(read("speech.flac"))).toBe("flac");
    expect(sniffAudioFormat(read("speech.wav"))).toBe("wav");
    expect(sniffAudioFormat(read("speech.ogg"))).toBe("ogg");
    expect(sniffAudioFormat(read("speech.webm"))).toBe("webm");
    expect(sniffAudioFormat(read("speech.m4a"))).toBe("mp4");
    expect(sniffAudioFormat(read("speech.mp3"))).toBe("mp3");
    expect(sniffAudioFormat(Buffer.from("Dear parents, the exam is on Monday.\n"))).toBeNull();
    expect(sniffAudioFormat(new Uint8Array(0))).toBeNull();
    expect(sniffAudioFormat(Buffer.from("%PDF-1.7\n"))).toBeNull();
  });

  it("answers 422 invalid_file_format for a text file named .mp3, and never crashes on a truncated mp3", async () => {
    const text = await tempFile("this is not audio at all\n".repeat(20));
    await expect(decodeAudioFile(ffmpeg, text)).rejects.toMatchObject({ status: 422, openaiCode: "invalid_file_format" });
    const truncated = await tempFile(read("speech.mp3").subarray(0, 700));
    // A cut-off mp3 decodes as far as it goes (short audio) or is refused as 422: never anything else.
    const outcome = await decodeAudioFile(ffmpeg, truncated).then(
      (samples) => ({ samples: samples.length }),
      (error: AppError) => ({ status: error.status }),
    );
    if ("status" in outcome) expect(outcome.status).toBe(422);
    else expect(outcome.samples).toBeLessThan(SAMPLE_RATE);
  });

  it("counts only near-zero audio as silent", () => {
    expect(isSilent(new Float32Array(16000))).toBe(true);
    const quietHum = new Float32Array(16000).fill(0.0005);
    expect(isSilent(quietHum)).toBe(true);
    quietHum[8000] = 0.2;
    expect(isSilent(quietHum)).toBe(false);
  });
});

function multipartBody(boundary: string, parts: { name: string; value: string | Buffer; filename?: string }[]) {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    const disposition = `form-data; name="${part.name}"${part.filename === undefined ? "" : `; filename="${part.filename}"`}`;
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: ${disposition}\r\n${part.filename === undefined ? "" : "Content-Type: audio/mpeg\r\n"}\r\n`));
    chunks.push(Buffer.isBuffer(part.value) ? part.value : Buffer.from(part.value));
    chunks.push(Buffer.from("\r\n"));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return Buffer.concat(chunks);
}

async function* inPieces(body: Buffer, size: number) {
  for (let offset = 0; offset < body.length; offset += size) yield body.subarray(offset, offset + size);
}

describe("streamed multipart parsing", () => {
  const boundary = "----markbook-test-boundary";
  const audio = read("speech.mp3");
  const body = multipartBody(boundary, [
    { name: "model", value: "tiny" },
    { name: "timestamp_granularities[]", value: "word" },
    { name: "timestamp_granularities[]", value: "segment" },
    { name: "file", value: audio, filename: "clip.mp3" },
    { name: "response_format", value: "verbose_json" },
  ]);

  const request = (pieces: AsyncIterable<Buffer>) => ({ contentType: `multipart/form-data; boundary=${boundary}`, contentLength: null, body: pieces });

  it("reads the boundary from the content type", () => {
    expect(multipartBoundary(`multipart/form-data; boundary=${boundary}`)).toBe(boundary);
    expect(multipartBoundary(`multipart/form-data; boundary="${boundary}"`)).toBe(boundary);
    expect(multipartBoundary("application/json")).toBeNull();
    expect(multipartBoundary(undefined)).toBeNull();
  });

  it.each([1, 7, 64, 65536])("streams fields and the file correctly in chunks of %i bytes", async (size) => {
    const upload = await readAudioUpload(request(inPieces(body, size)), 1024 * 1024);
    try {
      expect(upload.fields.get("model")).toEqual(["tiny"]);
      expect(upload.fields.get("timestamp_granularities[]")).toEqual(["word", "segment"]);
      expect(upload.fields.get("response_format")).toEqual(["verbose_json"]);
      expect(upload.file).toMatchObject({ filename: "clip.mp3", size: audio.length });
      expect(Buffer.compare(fs.readFileSync(upload.file!.path), audio)).toBe(0);
    } finally {
      await upload.cleanup();
    }
    expect(fs.existsSync(upload.file!.path)).toBe(false);
  });

  it("stops at the first byte past the limit with 413 file_too_large, without reading the rest", async () => {
    let chunksRead = 0;
    async function* counted() {
      for await (const chunk of inPieces(body, 1024)) {
        chunksRead++;
        yield chunk;
      }
    }
    await expect(readAudioUpload(request(counted()), 4096)).rejects.toMatchObject({
      status: 413,
      openaiCode: "file_too_large",
    });
    expect(chunksRead).toBeLessThan(10);
  });

  it("holds a body without a declared length to the same bound as a declared one: 1 MiB of fields besides the file", async () => {
    const fields = multipartBody(boundary, [...Array.from({ length: 20 }, (_, i) => ({ name: `f${i}`, value: "x".repeat(60 * 1024) })), { name: "file", value: audio, filename: "clip.mp3" }]);
    await expect(readAudioUpload(request(inPieces(fields, 65536)), audio.length)).rejects.toMatchObject({ status: 413, openaiCode: "file_too_large" });
  });

  it("refuses a body cut off before its closing boundary with 400", async () => {
    await expect(readAudioUpload(request(inPieces(body.subarray(0, body.length - 30), 512)), 1 << 20)).rejects.toMatchObject({
      status: 400,
    });
  });
});
