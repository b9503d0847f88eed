/** The process's real-time routes: both protocols on the custom server's upgrade routes, and their end at shutdown. */
import { registerUpgradeRoute } from "../../http/upgrade-routes";
import type { SpeechService } from "../service";
import { REALTIME_PATH } from "./dictation";
import { HEARTBEAT_MS, Heartbeat } from "./heartbeat";
import { OPENAI_REALTIME_PATH, openaiRealtimeProtocol } from "./openai";
import { createRealtimeUpgradeHandler } from "./upgrade";

/** Services whose sessions server.ts ends at shutdown (registerRealtimeRoute). */
const routedServices = new Set<SpeechService>();

/** Ends every real-time session of the process (server shutdown): each flushes its last final and closes. */
export function closeRealtimeSessions() {
  for (const service of routedServices) for (const session of service.realtimeSessions) session.shutdown();
}

/** Registers `/v1/websocket` and `/v1/realtime` on the custom server's upgrade routes, for the process's speech service. */
export function registerRealtimeRoute(service: SpeechService) {
  routedServices.add(service);
  const heartbeat = new Heartbeat(HEARTBEAT_MS);
  registerUpgradeRoute(REALTIME_PATH, createRealtimeUpgradeHandler(service, { heartbeat }));
  registerUpgradeRoute(OPENAI_REALTIME_PATH, createRealtimeUpgradeHandler(service, { heartbeat, protocol: openaiRealtimeProtocol }));
}
