import { Tensor } from "@huggingface/transformers";
import type { AnyProcessor } from "./model";

/**
 * Whisper's log-mel features of a window (up to 30 s). transformers.js pads the audio to 30 s and runs its
 * STFT over all 3000 frames, ~150 ms of JavaScript however short the audio (a dictated sentence is a few
 * seconds). Frames past the audio see only zeros, and all come out as the spectrogram's floor (its
 * maximum − 8, normalised): here only the frames that touch the audio, and a few of those zero frames,
 * are computed; the rest is that floor. Same numbers, a fraction of the time.
 */
export async function logMelFeatures(processor: AnyProcessor, samples: Float32Array): Promise<Tensor> {
  const extractor = processor.feature_extractor;
  const { hop_length: hop, n_fft: fftLength, nb_max_frames: frames, feature_size: mels } = extractor.config as {
    hop_length: number;
    n_fft: number;
    nb_max_frames: number;
    feature_size: number;
  };
  // Frames whose (centred) window reaches the audio, then two frames of zeros only.
  const computed = Math.ceil((samples.length + fftLength / 2) / hop) + 2;
  // Nearly 30 s of audio: nothing to gain, transformers.js' own path.
  if (computed > frames * 0.8) return (await processor(samples)).input_features;
  // Enough zeros after the audio that the end's reflect padding reflects zeros too.
  const waveform = new Float32Array(computed * hop + fftLength);
  waveform.set(samples);
  const partial = await extractor._extract_fbank_features(waveform);
  const [, width] = partial.dims as [number, number];
  const data = partial.data as Float32Array;
  const floor = data[computed - 1]!;
  const features = new Float32Array(mels * frames).fill(floor);
  for (let mel = 0; mel < mels; mel++) features.set(data.subarray(mel * width, mel * width + computed), mel * frames);
  return new Tensor("float32", features, [1, mels, frames]);
}
