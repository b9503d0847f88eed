import fs from "node:fs";
import path from "node:path";

export const audioFixturesDir = path.join(import.meta.dirname, "..", "fixtures", "audio");
export const readAudioFixture = (name: string) => fs.readFileSync(path.join(audioFixturesDir, name));

/** A 16-bit PCM WAV file of mono float samples. */
export function wavBytes(samples: Float32Array, sampleRate = 16_000): Buffer {
  const data = Buffer.alloc(samples.length * 2);
  for (let i = 0; i < samples.length; i++) data.writeInt16LE(Math.round(Math.max(-1, Math.min(1, samples[i]!)) * 32767), i * 2);
  const header = Buffer.alloc(44);
  header.write("RIFF", 0, "latin1");
  header.writeUInt32LE(36 + data.length, 4);
  header.write("WAVE", 8, "latin1");
  header.write("fmt ", 12, "latin1");
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20); // PCM
  header.writeUInt16LE(1, 22); // mono
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write("data", 36, "latin1");
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

/** Speech-like test samples of any length: the fixture's samples repeated (16 kHz mono float). */
export function repeatedSpeechSamples(seconds: number): Float32Array {
  const source = readAudioFixture("speech.wav");
  const dataChunk = source.indexOf("data", 12, "latin1");
  const pcm = source.subarray(dataChunk + 8, dataChunk + 8 + source.readUInt32LE(dataChunk + 4));
  const samples = new Float32Array(Math.round(seconds * 16_000));
  const count = pcm.length / 2;
  for (let i = 0; i < samples.length; i++) samples[i] = pcm.readInt16LE((i % count) * 2) / 32768;
  return samples;
}

/** Speech-like test audio of any length: the fixture's samples repeated (16 kHz mono s16 WAV). */
export function repeatedSpeechWav(seconds: number): Buffer {
  return wavBytes(repeatedSpeechSamples(seconds));
}

/**
 * The speech fixture (16 kHz) as OpenAI's realtime clients send audio: 24 kHz mono PCM16, repeated to
 * `seconds` (linear interpolation: the fixture has nothing above 8 kHz to fold back).
 */
export function speechPcm24k(seconds: number): Buffer {
  const source = readAudioFixture("speech.wav");
  const dataChunk = source.indexOf("data", 12, "latin1");
  const pcm = source.subarray(dataChunk + 8, dataChunk + 8 + source.readUInt32LE(dataChunk + 4));
  const count = pcm.length / 2;
  const at = (index: number) => pcm.readInt16LE((index % count) * 2);
  const out = Buffer.alloc(Math.round(seconds * 24_000) * 2);
  for (let i = 0; i < out.length / 2; i++) {
    const position = (i * 2) / 3;
    const before = Math.floor(position);
    const fraction = position - before;
    out.writeInt16LE(Math.round(at(before) * (1 - fraction) + at(before + 1) * fraction), i * 2);
  }
  return out;
}
