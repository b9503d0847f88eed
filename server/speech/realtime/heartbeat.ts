/** The sockets' heartbeat: a client that vanished without closing its connection is found and let go. */
import type { WebSocket } from "ws";
import { logger } from "../../logger";

/** How often an idle-looking client is pinged; one that has not answered the previous ping by then is gone. */
export const HEARTBEAT_MS = 30_000;

/**
 * Pings every open socket each interval; a socket that did not answer the previous ping is terminated
 * (a client that vanished without closing its TCP connection would otherwise hold its session forever).
 */
export class Heartbeat {
  private readonly alive = new Map<WebSocket, boolean>();
  private timer: NodeJS.Timeout | null = null;

  constructor(private readonly intervalMs: number) {}

  add(ws: WebSocket) {
    this.alive.set(ws, true);
    ws.on("pong", () => this.alive.set(ws, true));
    this.timer ??= setInterval(() => this.beat(), this.intervalMs).unref();
  }

  remove(ws: WebSocket) {
    this.alive.delete(ws);
    if (this.alive.size === 0 && this.timer) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  private beat() {
    for (const [ws, alive] of this.alive) {
      if (!alive) {
        logger.debug("realtime client stopped answering pings: its session ends");
        ws.terminate();
        continue;
      }
      this.alive.set(ws, false);
      if (ws.readyState === ws.OPEN) ws.ping();
    }
  }
}
