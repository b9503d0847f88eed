/** What a WebSocket handshake reads and answers before the upgrade: the client's key, and a refusal. */
import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { openaiErrorBody } from "../../errors";

/** The key: `Authorization: Bearer`, `?api_key=`, or a browser's `openai-insecure-api-key.<key>` subprotocol. */
export function keyOfRequest(request: IncomingMessage, url: URL): string | undefined {
  const header = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")?.[1];
  const offered = (request.headers["sec-websocket-protocol"] ?? "").split(",").map((protocol) => protocol.trim());
  const subprotocol = offered.find((protocol) => protocol.startsWith(KEY_SUBPROTOCOL))?.slice(KEY_SUBPROTOCOL.length);
  return header ?? url.searchParams.get("api_key") ?? (subprotocol || undefined);
}
const KEY_SUBPROTOCOL = "openai-insecure-api-key.";

/**
 * The handshake's refusal: an HTTP answer with the contract's error body
 * (docs/spec/speech-api.md "GET /v1/websocket"), before any upgrade.
 */
export function refuse(socket: Duplex, error: unknown, headers: Record<string, string> = {}) {
  const { status, body } = openaiErrorBody(error);
  const json = JSON.stringify(body);
  const reason = { 400: "Bad Request", 401: "Unauthorized", 429: "Too Many Requests", 500: "Internal Server Error", 503: "Service Unavailable" }[status] ?? "Error";
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join("");
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n${extra}Connection: close\r\n\r\n${json}`,
  );
}
