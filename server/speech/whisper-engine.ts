/**
 * Whisper decoding on transformers.js, with what transformers.js lacks done in whisper/: language
 * detection (first-step.ts), the prompt (prompt.ts), OpenAI's temperature fallback (fallback.ts),
 * segment statistics and word timestamps (segments.ts). This file walks long audio window by window
 * through those parts; the engine worker imports the engine from here. Runs inside an engine worker
 * thread (never on the server's event loop).
 */
import { SAMPLE_RATE, isSilent } from "./audio";
import type { EngineSettings, TranscribeRequest, TranscribeResult } from "./engine-protocol";
import type { Segment, Word } from "./formats";
import { CancelledError } from "./whisper/cancelled";
import { type WindowDecoding, decodeWindow } from "./whisper/decode-window";
import { decodeWithFallback, temperaturesToTry } from "./whisper/fallback";
import { logMelFeatures } from "./whisper/features";
import { firstStep, mostLikelyLanguage, noSpeechProbability } from "./whisper/first-step";
import type { LoadedWhisper } from "./whisper/model";
import { decoderPrompt, encodePrompt, maxNewTokens, previousTextAfter } from "./whisper/prompt";
import { windowSegments } from "./whisper/segments";
import { tokenLogprobs } from "./whisper/token-logprobs";
import { inAudioTime, windowsToDecode } from "./vad/windows";

export { CancelledError } from "./whisper/cancelled";
export { logMelFeatures } from "./whisper/features";
export { type LoadedWhisper, disposeWhisper, loadWhisper } from "./whisper/model";

const WINDOW_SECONDS = 30;
const WINDOW_SAMPLES = WINDOW_SECONDS * SAMPLE_RATE;

/** What the model cannot do is refused before any decoding: word timestamps without cross-attentions, a language it does not know. */
function checkRequestFitsModel(loaded: LoadedWhisper, request: TranscribeRequest) {
  if (request.wordTimestamps && !loaded.supportsWordTimestamps) {
    throw Object.assign(new Error("This model cannot give word timestamps (it was exported without cross-attention outputs)."), {
      code: "invalid",
      param: "timestamp_granularities",
    });
  }
  if (request.language && loaded.multilingual && !loaded.tokens.languageIds.has(request.language)) {
    throw Object.assign(new Error(`The model does not know the language '${request.language}'.`), { code: "invalid", param: "language" });
  }
}

/** Too quiet (the one silence rule, `isSilent`), or under a tenth of a second: not worth a decode. */
function skipWindow(window: Float32Array): boolean {
  return isSilent(window) || window.length < SAMPLE_RATE / 10;
}

export async function transcribeWithWhisper(
  loaded: LoadedWhisper,
  request: TranscribeRequest,
  settings: EngineSettings,
  isCancelled: () => boolean,
  /** Called with each decoded window's segments, as soon as they are found (stream=true sends them on). */
  onWindow?: (segments: Segment[]) => void,
  /** Resolves when the job may run its next encoder pass or decoder step (engine-worker.ts: priorities). */
  waitTurn: () => Promise<void> = async () => {},
): Promise<TranscribeResult> {
  const { model, processor, tokens } = loaded;
  const tokenizer = processor.tokenizer;
  const decodeText = (ids: number[]) => (ids.length === 0 ? "" : (tokenizer.decode(ids, { skip_special_tokens: true }) as string));
  const useTimestamps = request.timestamps ?? true;
  checkRequestFitsModel(loaded, request);

  let languageCode = request.language;
  const promptTokens = encodePrompt(tokenizer, request.prompt);
  let previousText: number[] = [];
  const segments: Segment[] = [];
  const words: Word[] = [];
  /** The text tokens of the decodes kept, with their log-probabilities (when asked for). */
  const textTokens: { id: number; logprob: number }[] = [];
  let decodes = 0;
  const timings = { features: 0, encoder: 0, firstStep: 0, decode: 0, tokens: 0 };
  let lapStart = performance.now();
  const lap = (phase: "features" | "encoder" | "firstStep" | "decode") => {
    const now = performance.now();
    timings[phase] += now - lapStart;
    lapStart = now;
  };
  for (const place of windowsToDecode(request.samples, request.vad, WINDOW_SAMPLES, isCancelled)) {
    if (isCancelled()) throw new CancelledError();
    const window = place.samples;
    if (skipWindow(window)) continue;

    await waitTurn();
    lapStart = performance.now();
    const inputFeatures = await logMelFeatures(processor, window);
    lap("features");
    if (isCancelled()) throw new CancelledError();
    const { encoder_outputs: encoderOutputs } = await model._prepare_encoder_decoder_kwargs_for_generation({
      inputs_tensor: inputFeatures,
      model_inputs: { input_features: inputFeatures },
      model_input_name: "input_features",
      generation_config: model.generation_config,
    });
    lap("encoder");
    if (isCancelled()) throw new CancelledError();
    const { logits: firstLogits, cross } = await firstStep(loaded, encoderOutputs);
    lap("firstStep");
    const noSpeechProb = noSpeechProbability(firstLogits, tokens.noSpeech);
    if (!languageCode) languageCode = loaded.multilingual ? (mostLikelyLanguage(firstLogits, tokens.languages) ?? languageCode) : "en";

    const initTokens = decoderPrompt({
      tokens,
      multilingual: loaded.multilingual,
      promptTokens,
      previousText,
      languageCode,
      task: request.task,
      useTimestamps,
    });
    const job: WindowDecoding = {
      model,
      cross,
      initTokens,
      maxNewTokens: maxNewTokens(initTokens.length, settings.maxNewTokens),
      minNewTokens: settings.minNewTokens,
      useTimestamps,
      wordTimestamps: request.wordTimestamps,
      windowLength: window.length,
      eot: tokens.eot,
      decodeText,
      isCancelled,
      waitTurn,
    };
    const decodeAt = async (temperature: number) => {
      decodes++;
      const decoded = await decodeWindow(job, temperature);
      timings.tokens += decoded.generated;
      return decoded;
    };
    const decoded = await decodeWithFallback(temperaturesToTry(request.temperature, settings.fallbackTemperatures), decodeAt, noSpeechProb, settings);
    lap("decode");
    if (!decoded) continue;

    // A window of speech regions is placed piece by piece; a window of the whole audio by its start.
    const found = windowSegments(
      decoded,
      { offsetSeconds: request.vad ? 0 : place.pieces[0]!.from / SAMPLE_RATE, windowSeconds: window.length / SAMPLE_RATE, noSpeechProb, firstId: segments.length, timestampBegin: tokens.timestampBegin, useTimestamps },
      decodeText,
    ).map((segment) => (request.vad ? inAudioTime(segment, place) : segment));
    segments.push(...found);
    if (request.logprobs) decoded.tokens.forEach((id, index) => id < tokens.eot && textTokens.push({ id, logprob: decoded.logprobs[index]! }));
    for (const segment of found) if (segment.words) words.push(...segment.words);
    onWindow?.(found);
    previousText = previousTextAfter(previousText, decoded, tokens.eot);
  }

  return {
    languageCode: languageCode ?? request.language ?? "en",
    text: segments.map((segment) => segment.text).join("").trim(),
    segments,
    words,
    ...(request.logprobs ? { logprobs: tokenLogprobs(tokenizer, textTokens) } : {}),
    decodes,
    timings,
  };
}
