import { AppError } from "../errors";
import { OPENAI_DEFAULT_MODEL_ALIAS, SPEECH_MODEL_IDS, type SpeechConfig, type SpeechModelId } from "./config";
import { findModelFolder, missingModelMessage } from "./model-install";
import type { SpeechReadiness } from "./readiness";

/** Whisper's first public release (2022-09-21): a stable `created` for every listed model. */
const WHISPER_RELEASED_AT = 1663718400;

export interface ModelObject {
  id: SpeechModelId;
  object: "model";
  created: number;
  owned_by: string;
  permission: object[];
  root: string;
  parent: null;
}

const isSpeechModelId = (value: string): value is SpeechModelId =>
  (SPEECH_MODEL_IDS as readonly string[]).includes(value);

function modelObject(config: SpeechConfig, id: SpeechModelId): ModelObject {
  return { id, object: "model", created: WHISPER_RELEASED_AT, owned_by: "markbook", permission: [], root: config.modelSources[id], parent: null };
}

/** What listing needs to know of the service's state (readiness.ts): which models can be loaded now, and why not. */
type ModelAvailability = Pick<SpeechReadiness, "loadable" | "models">;

/** GET /v1/models: the models that can be loaded now (files on disk and readable, or downloadable), not all five ids. */
export function listModels(config: SpeechConfig, availability: ModelAvailability) {
  return { object: "list" as const, data: availability.loadable.map((id) => modelObject(config, id)) };
}

/** A name the client sent, quoted in a message: long enough to recognise, never the whole of a huge one. */
const quoted = (name: string) => `'${name.length > 100 ? `${name.slice(0, 100)}…` : name}'`;

/**
 * GET /v1/models/{model}: 404 model_not_found for anything that is not one of the five ids, and for one
 * that cannot be loaded here (as the list leaves it out), saying why.
 */
export function retrieveModel(config: SpeechConfig, availability: ModelAvailability, id: string): ModelObject {
  if (!isSpeechModelId(id)) {
    throw new AppError("not_found", `The model ${quoted(id)} does not exist. Models: ${SPEECH_MODEL_IDS.join(", ")}.`, "model", "model_not_found");
  }
  if (!availability.loadable.includes(id)) {
    const available = availability.loadable.length > 0 ? `Models available here: ${availability.loadable.join(", ")}.` : "No model is available here.";
    throw new AppError("not_found", `The model '${id}' is not available on this server: ${availability.models[id].reason ?? "it cannot be loaded"}. ${available}`, "model", "model_not_found");
  }
  return modelObject(config, id);
}

/**
 * A model that is one of the five ids but cannot be loaded here. The contract declares 400 (not 404,
 * which it gives to GET /v1/models/{model} only: docs/spec/speech-api.md "Errors") on transcriptions and the socket;
 * the code says why.
 */
function modelNotInstalled(config: SpeechConfig, model: string, source: string): AppError {
  return new AppError("invalid", missingModelMessage(model, source, config), "model", "model_not_found");
}

/**
 * The model a request names (absent: the default; `whisper-1`: the default), else 400 naming `model`.
 * With downloads off, a model whose files are not all here is refused at once (a download that fails is
 * refused the same way by the engine).
 */
export function resolveRequestedModel(config: SpeechConfig, requested: string | undefined): SpeechModelId {
  let model: SpeechModelId;
  if (requested === undefined || requested === "" || requested === OPENAI_DEFAULT_MODEL_ALIAS) model = config.defaultModel;
  else if (isSpeechModelId(requested)) model = requested;
  else throw new AppError("invalid", `model must be one of ${SPEECH_MODEL_IDS.join(", ")} (or ${OPENAI_DEFAULT_MODEL_ALIAS}); got ${quoted(requested)}`, "model");
  const source = config.modelSources[model];
  if (!config.allowRemoteModels && !findModelFolder(config, source)) throw modelNotInstalled(config, model, source);
  return model;
}
