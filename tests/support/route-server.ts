import http from "node:http";
import type { AddressInfo } from "node:net";

export type WebHandler = (request: Request) => Promise<Response>;

export interface RunningRouteServer {
  baseURL: string;
  port: number;
  close(): Promise<void>;
}

/**
 * A plain http server that hands every request to a Web-style route handler the way Next's
 * `NextRequestAdapter.fromNodeNextRequest` does: the Node IncomingMessage itself is the Request's body
 * (read through its async iterator), so early answers behave on the wire as they do behind server.ts.
 * `prepare` runs first on every request, as server.ts's own request hooks do.
 */
export async function startRouteServer(handler: WebHandler, prepare?: (server: http.Server) => void): Promise<RunningRouteServer> {
  const server = http.createServer();
  prepare?.(server);
  server.on("request", (incoming: http.IncomingMessage, outgoing: http.ServerResponse) => {
    void (async () => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(incoming.headers)) {
        for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
      }
      const hasBody = incoming.method !== "GET" && incoming.method !== "HEAD";
      const request = new Request(`http://127.0.0.1${incoming.url}`, {
        method: incoming.method,
        headers,
        body: hasBody ? (incoming as unknown as ReadableStream<Uint8Array>) : undefined,
        duplex: "half",
      } as RequestInit);
      const reply = await handler(request);
      outgoing.writeHead(reply.status, Object.fromEntries(reply.headers));
      outgoing.end(Buffer.from(await reply.arrayBuffer()));
    })().catch((error: unknown) => {
      if (!outgoing.headersSent) outgoing.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    port,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
