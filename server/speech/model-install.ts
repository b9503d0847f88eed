/**
 * Whether a model's files are on this machine, and what to tell a client whose model is not. Plain
 * Node only: the engine worker imports it too (it must not pull the app's error or zod modules in).
 */
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";

/** transformers.js' own download cache (its default `env.cacheDir`: `.cache` in its package folder). */
function transformersCacheDir(): string | null {
  try {
    const entry = createRequire(import.meta.url).resolve("@huggingface/transformers");
    return path.join(path.dirname(path.dirname(entry)), ".cache");
  } catch {
    return null;
  }
}

/** The model's folder (with its config.json) in MODELS_DIR or the download cache, or an absolute path. */
export function modelOnDisk(modelsDir: string, source: string): boolean {
  const roots = path.isAbsolute(source) ? [""] : [modelsDir, transformersCacheDir()];
  return roots.some((root) => root !== null && fs.existsSync(path.join(root, source, "config.json")));
}

/** The sentence a client gets when the model it named cannot be loaded here: which one, and how to install it. */
export function missingModelMessage(model: string, source: string, settings: { modelsDir: string; allowRemoteModels: boolean }): string {
  const variable = `SPEECH_MODEL_${model.toUpperCase()}`;
  const folder = path.isAbsolute(source) ? source : path.join(settings.modelsDir, source);
  const how = path.isAbsolute(source)
    ? `put the model's files in ${folder} (${variable})`
    : `put its files in MODELS_DIR as ${folder} (the folder name is ${variable}=${source}), or point ${variable} at a folder that has them`;
  return settings.allowRemoteModels
    ? `The model '${model}' is not installed on this server and could not be downloaded from the Hugging Face hub (${source}). To install it, ${how}; or let the server reach the hub (ALLOW_REMOTE_MODELS=true).`
    : `The model '${model}' is not installed on this server. To install it, ${how}; or set ALLOW_REMOTE_MODELS=true to download ${source} from the Hugging Face hub. Another model id (tiny, base, …) may be installed.`;
}
