import { pathTemplateParams, pathTemplatePattern } from "../http/path-template";

/**
 * The operations of the speech REST API under /v1: the handler (http.ts) routes with this table and
 * the OpenAPI document (openapi.ts) must describe every entry, so that neither has one the other lacks.
 */

export const SPEECH_HTTP_OPERATIONS = {
  health: { methods: ["GET", "HEAD"], path: "/v1/health" },
  readiness: { methods: ["GET", "HEAD"], path: "/v1/health/ready" },
  listModels: { methods: ["GET"], path: "/v1/models" },
  retrieveModel: { methods: ["GET"], path: "/v1/models/{model}" },
  createTranscription: { methods: ["POST"], path: "/v1/audio/transcriptions" },
  createTranslation: { methods: ["POST"], path: "/v1/audio/translations" },
} as const satisfies Record<string, { methods: readonly string[]; path: string }>;

export type SpeechHttpOperation = keyof typeof SPEECH_HTTP_OPERATIONS;

/**
 * The WebSocket paths (the same as realtime/dictation.ts's and realtime/openai.ts's, which a test checks):
 * server.ts hands their upgrades to realtime/routes.ts, and the handler answers a plain request to one with 400.
 */
export const SPEECH_SOCKET_PATHS = { websocket: "/v1/websocket", realtime: "/v1/realtime" } as const;

const patterns: { operation: SpeechHttpOperation; methods: readonly string[]; names: string[]; pattern: RegExp }[] = Object.entries(SPEECH_HTTP_OPERATIONS).map(([operation, { methods, path }]) => ({
  operation: operation as SpeechHttpOperation,
  methods,
  names: pathTemplateParams(path),
  pattern: pathTemplatePattern(path),
}));

/** The operation a request is for, with its path parameters (as sent, still percent-encoded), or null. */
export function matchSpeechOperation(method: string, path: string): { operation: SpeechHttpOperation; params: Record<string, string> } | null {
  for (const { operation, methods, names, pattern } of patterns) {
    const match = pattern.exec(path);
    if (match && methods.includes(method)) return { operation, params: Object.fromEntries(names.map((name, index) => [name, match[index + 1]!])) };
  }
  return null;
}
