/**
 * The upgrade of one protocol's path: the handshake's checks (key, settings, the session limit, the
 * key's request budget), refused as plain HTTP before the upgrade; then the session, counted while its
 * socket is open.
 */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { type WebSocket, WebSocketServer } from "ws";
import { AppError } from "../../errors";
import { logger } from "../../logger";
import { retryAfterOf } from "../rate-limits";
import type { SpeechService } from "../service";
import type { EndpointingMethod } from "../vad/endpointer";
import { dictationProtocol } from "./dictation";
import { keyOfRequest, refuse } from "./handshake";
import { HEARTBEAT_MS, Heartbeat } from "./heartbeat";
import type { ProtocolConnection, RealtimeProtocol, SessionSettings } from "./protocol";
import { RealtimeSession } from "./session";

/** The handler of one protocol's upgrades: the dictation socket's unless `protocol` names another; `closeAll` ends its sessions. */
export function createRealtimeUpgradeHandler(
  service: SpeechService,
  {
    heartbeatMs = HEARTBEAT_MS,
    heartbeat = new Heartbeat(heartbeatMs),
    protocol = dictationProtocol,
    endpointing = "vad",
  }: { heartbeatMs?: number; heartbeat?: Heartbeat; protocol?: RealtimeProtocol; endpointing?: EndpointingMethod } = {},
) {
  const server = new WebSocketServer({
    noServer: true,
    maxPayload: protocol.maxPayload,
    handleProtocols: (offered) => protocol.selectProtocol?.(offered) ?? false,
  });
  // A handshake `ws` itself refuses (not GET, a bad Sec-WebSocket-Key or version) gets the contract's
  // 400 and error body (docs/spec/speech-api.md "GET /v1/websocket"), not ws's plain-text answer.
  server.on("wsClientError", (error, socket) => {
    if (!socket.destroyed) refuse(socket, new AppError("invalid", `The WebSocket handshake was refused: ${error.message}.`));
  });
  // The count lives on the service: the handshake's limit and /v1/health read the same set.
  const sessions = service.realtimeSessions;

  const handler = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    // Until `ws` takes the socket, nobody listens for its errors: a client resetting the connection
    // during the handshake must not become an uncaught 'error' event.
    const onSocketError = () => socket.destroy();
    socket.on("error", onSocketError);
    void (async () => {
      try {
        const url = new URL(request.url ?? "/", "http://localhost");
        const key = keyOfRequest(request, url);
        const keyId = key ? await service.authenticate(key) : null;
        if (!keyId) throw new AppError("unauthenticated", "Incorrect or missing API key (Authorization: Bearer, or ?api_key=).", undefined, "invalid_api_key");
        const settings = { ...protocol.handshake(service, url, request), endpointing };
        if (sessions.size >= service.config.wsMaxSessions) {
          throw new AppError("rate_limited", `Too many real-time sessions (at most ${service.config.wsMaxSessions}). Retry later.`, undefined, "rate_limit_exceeded");
        }
        // A session is one request of the key; its audio counts, frame by frame, against the key's
        // audio seconds per minute as the HTTP endpoints' does.
        await service.rateLimiter.takeRequest(keyId);
        if (socket.destroyed) return; // the client left during the checks
        server.handleUpgrade(request, socket, head, (ws) => {
          socket.off("error", onSocketError);
          openSession(service, ws, settings, protocol.connect(settings, url, request), keyId, heartbeat);
        });
      } catch (error) {
        if (socket.destroyed) return;
        const retryAfter = error instanceof AppError && error.code === "rate_limited" ? (retryAfterOf(error) ?? 5) : retryAfterOf(error);
        refuse(socket, error, retryAfter ? { "Retry-After": String(retryAfter) } : {});
      }
    })();
  };
  return Object.assign(handler, {
    /** Ends every session (server shutdown). */
    closeAll() {
      for (const session of sessions) session.shutdown();
    },
  });
}

/**
 * The one place a session is counted and released: it enters the service's set here and leaves it on
 * the socket's `close`, which `ws` emits once on every way out (close handshake, error, 1009/1007,
 * terminate, TCP reset). Nothing else adds or removes, so the count cannot leak.
 */
function openSession(service: SpeechService, ws: WebSocket, settings: SessionSettings, connection: ProtocolConnection, keyId: string, heartbeat: Heartbeat) {
  let session: RealtimeSession | null = null;
  const release = () => {
    if (session) service.realtimeSessions.delete(session);
    heartbeat.remove(ws);
  };
  ws.once("close", release);
  // Before any listener of the session: an error event without a listener would be thrown.
  ws.on("error", (error) => logger.debug(`realtime socket error: ${error.message}`));
  try {
    session = new RealtimeSession(service, ws, settings, connection, keyId);
    service.realtimeSessions.add(session);
    heartbeat.add(ws);
  } catch (error) {
    logger.error("realtime session failed to start", error);
    ws.terminate();
  }
}
