import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";

/** Takes over an HTTP upgrade (a WebSocket handshake) for one path, e.g. `ws` in noServer mode. */
export type UpgradeHandler = (request: IncomingMessage, socket: Duplex, head: Buffer) => void;

// On globalThis, like the database slot: a route registered from a Next.js bundle (its own copy of
// this module) must still be seen by server.ts.
const slot = globalThis as typeof globalThis & { __markbookUpgradeRoutes?: Map<string, UpgradeHandler> };
const routes = () => (slot.__markbookUpgradeRoutes ??= new Map<string, UpgradeHandler>());

/** Registers the handler of WebSocket upgrades to exactly `path` (query strings are ignored). */
export function registerUpgradeRoute(path: string, handler: UpgradeHandler): void {
  if (!path.startsWith("/")) throw new Error(`Upgrade route must start with "/": ${path}`);
  routes().set(path, handler);
}

/** The handler registered for the request's path, if any. */
export function findUpgradeRoute(requestUrl: string | undefined): UpgradeHandler | undefined {
  const pathname = (requestUrl ?? "/").split("?", 1)[0]!;
  return routes().get(pathname);
}
