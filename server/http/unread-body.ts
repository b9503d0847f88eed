import type http from "node:http";

/**
 * Early answers to uploads (413, 401, 400… before the body was read to its end) must reach a client that
 * is still sending. Hanging up at once makes the kernel reset the connection when the next bytes arrive,
 * and a reset can discard the answer before a fetch-based client (undici, the `openai` client) reads it:
 * the client sees EPIPE / "fetch failed" instead of the 413. So the rest of the body is read and thrown
 * away after the answer, bounded in bytes and time; past either bound the connection is closed.
 *
 * It is installed once on the http server (server.ts; the test servers do the same), so every handler,
 * Next route or plain Node, gets it without doing anything.
 */
export interface DrainBounds {
  /** Bytes of unread body swallowed after the answer before hanging up. */
  maxBytes: number;
  /** Time allowed, from the answer, for the rest of the body to arrive. */
  maxMs: number;
}

/** A little over the largest upload limit by default (MAX_SCAN_BYTES, 50 MiB), and a slow link's time. */
export const DEFAULT_DRAIN_BOUNDS: DrainBounds = { maxBytes: 64 * 1024 * 1024, maxMs: 30_000 };

export function drainUnreadBodies(server: http.Server, bounds: DrainBounds = DEFAULT_DRAIN_BOUNDS): void {
  // First listener: it must run before any handler reads the body.
  server.prependListener("request", (request: http.IncomingMessage, response: http.ServerResponse) => {
    keepBodyReadable(request);
    // Before Node's own 'finish' listener, which would otherwise discard the body unbounded and unseen.
    response.prependOnceListener("finish", () => drainAfterAnswer(request, bounds));
  });
}

/**
 * Handlers stop reading early by leaving a `for await` loop or cancelling a Web stream made from the
 * request (Next's Request body is the IncomingMessage itself): both end its async iterator, which by
 * default destroys the request. Node then keeps the connection but silently discards the rest of the
 * body for as long as the client sends it, with no bound, so the drain could never stop a client that
 * sends forever. Iterators of this request leave it open instead; a client that goes away still errors
 * them as before.
 */
function keepBodyReadable(request: http.IncomingMessage) {
  Object.defineProperty(request, Symbol.asyncIterator, {
    configurable: true,
    value: () => request.iterator({ destroyOnReturn: false }),
  });
}

function drainAfterAnswer(request: http.IncomingMessage, bounds: DrainBounds) {
  if (request.complete || request.destroyed) return;
  let drained = 0;
  const hangUp = () => {
    stop();
    request.socket?.destroy();
  };
  const timer = setTimeout(hangUp, bounds.maxMs);
  timer.unref();
  const discard = () => {
    for (let chunk = request.read() as Buffer | null; chunk !== null; chunk = request.read() as Buffer | null) {
      drained += chunk.length;
      if (drained > bounds.maxBytes) return hangUp();
    }
  };
  const stop = () => {
    clearTimeout(timer);
    request.off("readable", discard);
  };
  // Paused-mode reading works whether or not a handler left a reader attached. The first read also marks
  // the body as being consumed, so that Node does not start discarding it on its own.
  request.on("readable", discard);
  request.once("end", stop);
  request.once("close", stop);
  discard();
}
