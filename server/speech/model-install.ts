/**
 * Where a model's files are on this machine, and what to tell a client whose model cannot be loaded.
 * Plain Node only: the engine worker imports it too (it must not pull the app's error or zod modules in).
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** What locating a model needs: the engine's settings and the speech configuration both fit. */
export interface ModelLocation {
  modelsDir: string;
  allowRemoteModels: boolean;
  dtype: string;
  hubUrl: string;
}

/** transformers.js' file names per dtype (`encoder_model_quantized.onnx` for q8). */
export const DTYPE_SUFFIX: Record<string, string> = { fp32: "", fp16: "_fp16", q8: "_quantized", int8: "_int8", uint8: "_uint8", q4: "_q4" };

/** The files a Whisper model folder needs for this dtype (generation_config.json is read when present). */
export function requiredModelFiles(dtype: string): string[] {
  const suffix = DTYPE_SUFFIX[dtype] ?? "";
  return [
    "config.json",
    "preprocessor_config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    `onnx/encoder_model${suffix}.onnx`,
    `onnx/decoder_model_merged${suffix}.onnx`,
  ];
}

/** transformers.js' own download cache (its default `env.cacheDir`: `.cache` in its package folder). */
function transformersCacheDir(): string | null {
  try {
    const entry = createRequire(import.meta.url).resolve("@huggingface/transformers");
    return path.join(path.dirname(path.dirname(entry)), ".cache");
  } catch {
    return null;
  }
}

/** A file this process can read (a folder, or a file of another user's without read permission, is not one). */
function isReadableFile(file: string): boolean {
  try {
    if (!fs.statSync(file).isFile()) return false;
    fs.accessSync(file, fs.constants.R_OK);
    return true;
  } catch {
    return false;
  }
}

/** The folder in MODELS_DIR (or the download cache, or the absolute path) named by a model source. */
const modelFolder = (modelsDir: string, source: string) => (path.isAbsolute(source) ? source : path.join(modelsDir, source));

/** The folder holding every file the model needs for this dtype: in MODELS_DIR, the download cache, or an absolute path. */
export function findModelFolder(location: Pick<ModelLocation, "modelsDir" | "dtype">, source: string, cacheDir = transformersCacheDir()): string | null {
  const candidates = path.isAbsolute(source) ? [source] : [location.modelsDir, cacheDir].filter((root): root is string => Boolean(root)).map((root) => path.join(root, source));
  const files = requiredModelFiles(location.dtype);
  return candidates.find((folder) => files.every((file) => isReadableFile(path.join(folder, file)))) ?? null;
}

/** The files of this dtype missing from the model's folder in MODELS_DIR, or not readable (all of them when there is no folder). */
function missingModelFiles(location: Pick<ModelLocation, "modelsDir" | "dtype">, source: string): string[] {
  const folder = modelFolder(location.modelsDir, source);
  return requiredModelFiles(location.dtype).filter((file) => !isReadableFile(path.join(folder, file)));
}

/** Why a download failed, in words for an operator (fetch's "fetch failed" says nothing). */
export function downloadFailureReason(error: unknown, hubUrl: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const cause = error instanceof Error && error.cause instanceof Error ? error.cause : null;
  const causeCode = (cause as { code?: string } | null)?.code;
  if (/fetch failed/i.test(message) || causeCode) return `${hubUrl} could not be reached${causeCode ? ` (${causeCode})` : ""}`;
  if (/could not locate file/i.test(message)) return `${hubUrl} has no such model, or not its files for this SPEECH_DTYPE`;
  const status = /^(.*?) (?:error )?occurred while trying to load file|^(Unauthorized|Forbidden) access to file/i.exec(message);
  if (status) return `${hubUrl} refused the download (${(status[1] ?? status[2] ?? "").trim() || "error"})`;
  return `the download from ${hubUrl} failed (${message.slice(0, 200)})`;
}

/** Why the model is not loadable from disk: not there at all, or a folder that lacks files of this dtype. */
export function whyNotOnDisk(location: Pick<ModelLocation, "modelsDir" | "dtype">, source: string): string {
  const missing = missingModelFiles(location, source);
  if (missing.length < requiredModelFiles(location.dtype).length) return `its folder ${modelFolder(location.modelsDir, source)} lacks ${missing.join(", ")} (missing or unreadable; SPEECH_DTYPE=${location.dtype})`;
  return path.isAbsolute(source) ? `${source} holds no model` : `it is not in MODELS_DIR (${location.modelsDir})`;
}

/**
 * The sentence a client gets when the model it named cannot be loaded here: which model, why, and the
 * settings that change it (MODELS_DIR, SPEECH_MODEL_<ID>, ALLOW_REMOTE_MODELS, HF_ENDPOINT).
 * `downloadFailure`: why the hub could not give it, when downloads are on.
 */
export function missingModelMessage(model: string, source: string, location: ModelLocation, downloadFailure?: string): string {
  const variable = `SPEECH_MODEL_${model.toUpperCase()}`;
  const install = `Put its files in ${modelFolder(location.modelsDir, source)}, or set MODELS_DIR or ${variable} to a folder that has them`;
  const why = whyNotOnDisk(location, source);
  if (!location.allowRemoteModels) {
    return `The model '${model}' cannot be loaded: ${why}, and downloads are off (ALLOW_REMOTE_MODELS=false). ${install}; or set ALLOW_REMOTE_MODELS=true to download ${source} from the Hugging Face hub.`;
  }
  return `The model '${model}' cannot be loaded: ${why}, and ${downloadFailure ?? `the download of ${source} failed`}. ${install}; or let this server reach ${location.hubUrl} (HF_ENDPOINT names a mirror).`;
}
