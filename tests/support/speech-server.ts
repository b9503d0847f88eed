import fs from "node:fs";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { parseEnv } from "../../server/env";
import { drainUnreadBodies } from "../../server/http/unread-body";
import { type SpeechConfig, speechConfigFromEnv } from "../../server/speech/config";
import { createSpeechHandler } from "../../server/speech/http";
import { OPENAI_REALTIME_PATH, openaiRealtimeProtocol } from "../../server/speech/realtime/openai";
import { REALTIME_PATH } from "../../server/speech/realtime/dictation";
import { createRealtimeUpgradeHandler } from "../../server/speech/realtime/upgrade";
import { type SpeechService, createSpeechService } from "../../server/speech/service";

/** MODELS_DIR, else ../shared/models beside the repository (where whisper-tiny-random lives). */
export const testModelsDir = path.resolve(process.env.MODELS_DIR || path.join(import.meta.dirname, "..", "..", "..", "shared", "models"));
export const TEST_MODEL_FOLDER = "whisper-tiny-random";
export const testModelAvailable = fs.existsSync(path.join(testModelsDir, TEST_MODEL_FOLDER, "config.json"));

/**
 * Speech configuration for tests: the random-weight tiny model from the local folder, never the hub;
 * a short token budget and no temperature fallback unless a test asks for them.
 */
export function testSpeechConfig(overrides: Record<string, string> = {}): SpeechConfig {
  return speechConfigFromEnv(
    parseEnv({
      MODELS_DIR: testModelsDir,
      SPEECH_MODEL_TINY: TEST_MODEL_FOLDER,
      SPEECH_MODEL_BASE: TEST_MODEL_FOLDER,
      SPEECH_DEFAULT_MODEL: "tiny",
      ALLOW_REMOTE_MODELS: "false",
      SPEECH_WORKERS: "1",
      SPEECH_THREADS: "2",
      SPEECH_MAX_NEW_TOKENS: "24",
      SPEECH_FALLBACK_TEMPERATURES: "off",
      FFMPEG_PATH: process.env.FFMPEG_PATH ?? "",
      ...overrides,
    }),
  );
}

export interface RunningSpeechServer {
  baseURL: string;
  websocketURL: string;
  /** OpenAI's realtime transcription socket (/v1/realtime). */
  realtimeURL: string;
  port: number;
  /** Real-time sessions open on the server side. */
  realtimeSessions(): number;
  service: SpeechService;
  close(): Promise<void>;
}

/**
 * A plain http server on a random port with the same handler server.ts mounts under /v1/, and both
 * sockets; `tls` serves https/wss instead (OpenAI's realtime client only speaks wss).
 */
export async function startSpeechServer(
  config: SpeechConfig,
  options: Parameters<typeof createSpeechService>[1] = {},
  realtimeOptions: { heartbeatMs?: number } = {},
  { tls }: { tls?: { key: Buffer; cert: Buffer } } = {},
): Promise<RunningSpeechServer> {
  const service = createSpeechService(config, options);
  const handler = createSpeechHandler(service);
  const server = tls ? https.createServer(tls) : http.createServer();
  drainUnreadBodies(server); // as server.ts does
  server.on("request", (request, response) => void handler(request, response));
  const realtime = createRealtimeUpgradeHandler(service, realtimeOptions);
  const openaiRealtime = createRealtimeUpgradeHandler(service, { ...realtimeOptions, protocol: openaiRealtimeProtocol });
  server.on("upgrade", (request, socket, head) => {
    const path = (request.url ?? "").split("?")[0];
    if (path === REALTIME_PATH) realtime(request, socket, head);
    else if (path === OPENAI_REALTIME_PATH) openaiRealtime(request, socket, head);
    else socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const [web, socket] = tls ? ["https", "wss"] : ["http", "ws"];
  return {
    baseURL: `${web}://127.0.0.1:${port}/v1`,
    websocketURL: `${socket}://127.0.0.1:${port}${REALTIME_PATH}`,
    realtimeURL: `${socket}://127.0.0.1:${port}${OPENAI_REALTIME_PATH}`,
    realtimeSessions: () => service.realtimeSessions.size,
    port,
    service,
    async close() {
      realtime.closeAll();
      openaiRealtime.closeAll();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await service.close();
    },
  };
}
