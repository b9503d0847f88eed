/**
 * One decode of one window at one temperature: transformers.js' generate() with Whisper's logits
 * processors and the TokenPicker last, and the statistics the fallback judges the result by.
 */
import { type LogitsProcessor, SuppressTokensAtBeginLogitsProcessor, type Tensor, WhisperTimeStampLogitsProcessor } from "@huggingface/transformers";
import { compressionRatio } from "./fallback";
import type { AnyModel } from "./model";
import { TokenPicker } from "./token-picker";

/** Samples per mel frame: word timestamps need the window's length in frames. */
const HOP_LENGTH = 160;

export interface WindowDecode {
  /** The tokens decoded, <|endoftext|> left out. */
  tokens: number[];
  /** The log-probability of each token picked (<|endoftext|>'s included). */
  logprobs: number[];
  /** Each token's time in the window from cross-attention, when word timestamps were asked for. */
  tokenTimes: number[] | null;
  temperature: number;
  avgLogprob: number;
  compressionRatio: number;
  text: string;
  /** How many tokens the decoder produced, <|endoftext|> included. */
  generated: number;
}

/** What stays the same across the decodes of one window (only the temperature changes). */
export interface WindowDecoding {
  model: AnyModel;
  inputFeatures: Tensor;
  encoderOutputs: unknown;
  /** The decoder prompt (prompt.ts). */
  initTokens: number[];
  maxNewTokens: number;
  /** Benchmarks only: decode at least this many tokens. */
  minNewTokens?: number;
  useTimestamps: boolean;
  wordTimestamps: boolean;
  /** The window's length in samples. */
  windowLength: number;
  eot: number;
  decodeText: (ids: number[]) => string;
  isCancelled: () => boolean;
}

export async function decodeWindow(job: WindowDecoding, temperature: number): Promise<WindowDecode> {
  const { model, initTokens, maxNewTokens } = job;
  const config = model.generation_config;
  const picker = new TokenPicker(temperature, job.isCancelled);
  const processors: LogitsProcessor[] = [];
  if (job.useTimestamps) processors.push(new WhisperTimeStampLogitsProcessor(config, initTokens));
  if (config.begin_suppress_tokens) processors.push(new SuppressTokensAtBeginLogitsProcessor(config.begin_suppress_tokens, initTokens.length));
  processors.push(picker);
  const output = await model.generate({
    input_features: job.inputFeatures,
    encoder_outputs: job.encoderOutputs,
    decoder_input_ids: initTokens,
    logits_processor: processors,
    max_new_tokens: maxNewTokens,
    ...(job.minNewTokens ? { min_new_tokens: Math.min(job.minNewTokens, maxNewTokens) } : {}),
    do_sample: false,
    return_timestamps: false,
    begin_suppress_tokens: null,
    ...(job.wordTimestamps ? { return_token_timestamps: true, num_frames: Math.floor(job.windowLength / HOP_LENGTH) } : {}),
  });
  const generated = picker.tokens;
  const textTokens = generated.filter((id) => id < job.eot);
  const withoutEot = generated.at(-1) === job.eot ? generated.slice(0, -1) : generated;
  const sum = picker.logprobs.reduce((a, b) => a + b, 0);
  const text = job.decodeText(textTokens);
  let tokenTimes: number[] | null = null;
  if (job.wordTimestamps && output.token_timestamps) {
    tokenTimes = (output.token_timestamps.tolist()[0] as number[]).slice(initTokens.length).map(Number);
  }
  return {
    tokens: withoutEot,
    logprobs: picker.logprobs,
    tokenTimes,
    temperature,
    avgLogprob: sum / (withoutEot.length + 1),
    compressionRatio: compressionRatio(text),
    text,
    generated: generated.length,
  };
}
