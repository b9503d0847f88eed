import WebSocket from "ws";

/** A server message of /v1/websocket. */
type RealtimeMessage = { type: string; [field: string]: unknown };

/** An open session: the socket, every message received so far, and the close code when it closes. */
export interface RealtimeSession {
  ws: WebSocket;
  messages: RealtimeMessage[];
  closed: Promise<number>;
}

/** A handshake the server refused with a plain HTTP answer (the contract's error body). */
export interface RealtimeRefusal {
  status: number;
  retryAfter?: string;
  body: { error: Record<string, unknown> };
}

/**
 * Opens a /v1/websocket session with the real `ws` client; resolves with the refusal when the handshake
 * is answered instead of upgraded. A socket error after the upgrade is followed by a close, which
 * `closed` reports.
 */
export function connectRealtime(url: string, headers: Record<string, string> = {}): Promise<RealtimeSession | RealtimeRefusal> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    const messages: RealtimeMessage[] = [];
    const closed = new Promise<number>((done) => ws.on("close", (code) => done(code)));
    ws.on("message", (data) => messages.push(JSON.parse((data as Buffer).toString()) as RealtimeMessage));
    ws.on("open", () => resolve({ ws, messages, closed }));
    ws.on("unexpected-response", (_request, response) => {
      let body = "";
      response.on("data", (chunk: Buffer) => (body += chunk.toString()));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, retryAfter: response.headers["retry-after"], body: JSON.parse(body) }),
      );
    });
    ws.on("error", (error) => {
      if (ws.readyState === WebSocket.CONNECTING) reject(error);
    });
  });
}
