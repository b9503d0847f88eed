/**
 * Markbook's one process: the Next.js app and the WebSocket upgrades on one Node http server.
 *   tsx server.ts         production (NODE_ENV=production; needs a build: `npm start` makes one)
 *   tsx server.ts --dev   development, with hot reload
 */
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import { DataDirLockedError } from "./server/db/data-dir-lock";
import { DEMO_PASSWORD } from "./server/demo/school";
import { ConfigError, env } from "./server/env";
import { closeGraphStore } from "./server/graph/index";
import { allJobKinds } from "./server/composition/job-kinds";
import { type JobWorker, startJobWorker } from "./server/jobs/worker";
import { answerMalformedPath, restPrefixes } from "./server/http/malformed-path";
import { CLIENT_ADDRESS_HEADER, clientAddressOf } from "./server/auth/client-address";
import { drainUnreadBodies } from "./server/http/unread-body";
import { methodNotAllowed, methodTable } from "./server/http/method-not-allowed";
import { findUpgradeRoute } from "./server/http/upgrade-routes";
import { logger } from "./server/logger";
import { restRoutes } from "./server/rest-routes";
import { handleSpeechRequest, isSpeechPath } from "./server/speech/http";
import { closeRealtimeSessions, registerRealtimeRoute } from "./server/speech/realtime/routes";
import { closeSpeechService, getSpeechService } from "./server/speech/service";
import { type StartedMarkbook, startMarkbook } from "./server/startup";
import { startupLog } from "./server/startup-log";

const dev = process.argv.includes("--dev");
// Set before Next and React load (they pick their builds from it); env() reads it lazily.
(process.env as Record<string, string>).NODE_ENV = dev ? "development" : "production";

/** How long open connections (keep-alive, WebSockets) may hold up a shutdown. */
const SHUTDOWN_GRACE_MS = 5_000;
/** How long a running background job may hold up a shutdown before it is given back unfinished. */
const JOB_GRACE_MS = 3_000;

interface Running {
  markbook: StartedMarkbook;
  server: http.Server;
  jobs: JobWorker;
  closeNext(): Promise<void>;
}

async function start(): Promise<Running> {
  const config = env();
  if (!dev && !fs.existsSync(path.join(process.cwd(), ".next", "BUILD_ID"))) {
    throw new ConfigError("There is no production build in .next: run `npm start` (it builds first) or `npx next build`.");
  }
  const markbook = await startMarkbook();
  try {
    const server = http.createServer();
    const { default: next } = await import("next");
    // httpServer: Next attaches its own upgrade listener (hot reload in development) to this server.
    const app = next({ dev, hostname: config.HOST, port: config.PORT, httpServer: server });
    const handle = app.getRequestHandler();
    await startupLog().step("app", `loading the web app (${dev ? "development, compiled on demand" : "the production build"})`, () => app.prepare());

    // An early answer (413 and the like) reaches a client that is still sending its body.
    drainUnreadBodies(server);
    const restMethods = methodTable(restRoutes);
    const apiPrefixes = restPrefixes(restRoutes);
    server.on("request", (request, response) => {
      // The client's address as this server knows it, never as the client says (sign-in throttling).
      const address = clientAddressOf(request.socket.remoteAddress, request.headers["x-forwarded-for"], config.TRUSTED_PROXY_HOPS);
      if (address) request.headers[CLIENT_ADDRESS_HEADER] = address;
      else delete request.headers[CLIENT_ADDRESS_HEADER];
      // The speech API is plain Node code, outside Next's bundle (onnxruntime and workers stay native).
      if (isSpeechPath(request.url)) {
        handleSpeechRequest(request, response).catch((error: unknown) => {
          logger.error(`request ${request.method} ${request.url} failed`, error);
          if (!response.headersSent) response.writeHead(500).end();
        });
        return;
      }
      // A REST path whose percent-encoding cannot be decoded: the client's 400, not Next.js' plain-text 500.
      if (answerMalformedPath(apiPrefixes, request, response)) return;
      // A REST path asked with a method it does not have: the API's 405, not Next.js' empty one.
      const refused = methodNotAllowed(restMethods, request.method, request.url);
      if (refused) {
        response.writeHead(refused.status, { "content-type": "application/json", allow: refused.allow }).end(JSON.stringify(refused.body));
        return;
      }
      handle(request, response).catch((error: unknown) => {
        logger.error(`request ${request.method} ${request.url} failed`, error);
        if (!response.headersSent) response.writeHead(500).end("Internal server error");
      });
    });
    registerRealtimeRoute(getSpeechService());
    server.on("upgrade", (request, socket, head) => {
      const route = findUpgradeRoute(request.url);
      if (route) {
        try {
          route(request, socket, head);
        } catch (error) {
          logger.error(`upgrade ${request.url} failed`, error);
          socket.destroy();
        }
        return;
      }
      // Development: Next's listener takes its hot-reload socket. Production: nobody else wants it.
      if (!dev) socket.destroy();
    });

    await startupLog().step("listen", `opening ${config.HOST}:${config.PORT}`, () => listen(server, config.PORT, config.HOST));
    logger.info(
      `Markbook is ready on ${config.appUrl} (${dev ? "development" : "production"}, listening on ${config.HOST}:${config.PORT}): ${startupLog().summary()}`,
    );
    if (markbook.demoInstituteId) {
      logger.info(
        `Demo school: sign in as teacher@northfield.example (or admin@, head@, teacher2@, student01@northfield.example) ` +
          `with password ${DEMO_PASSWORD}. README.md lists the demo logins.`,
      );
    }
    const jobs = startJobWorker(markbook.database.db, {
      kinds: allJobKinds,
      concurrency: config.JOBS_CONCURRENCY,
      pollMs: config.JOBS_POLL_MS,
      leaseSeconds: config.JOBS_LEASE_SECONDS,
    });
    return { markbook, server, jobs, closeNext: () => app.close() };
  } catch (error) {
    await markbook.close().catch(() => {});
    throw error;
  }
}

function listen(server: http.Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      reject(
        error.code === "EADDRINUSE"
          ? new ConfigError(`Port ${port} on ${host} is already in use: stop the other program or set PORT to another port.`)
          : error,
      );
    };
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      resolve();
    });
  });
}

/** Resolves with `promise`, or after `ms` at the latest: one stuck step must not block the rest. */
const atMost = (ms: number, promise: Promise<unknown>) =>
  Promise.race([promise, new Promise((resolve) => setTimeout(resolve, ms).unref())]);

async function stop(running: Running) {
  const { server, markbook } = running;
  closeRealtimeSessions(); // each flushes its last final and closes its socket
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeIdleConnections();
  const grace = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS);
  // Upgraded sockets (WebSockets) are not the http server's to close: wait for them only so long.
  await atMost(SHUTDOWN_GRACE_MS + 1_000, closed);
  clearTimeout(grace);
  await atMost(3_000, running.closeNext().catch((error: unknown) => logger.warn("Next.js did not close cleanly", error)));
  await atMost(3_000, closeSpeechService().catch((error: unknown) => logger.warn("The speech engine did not stop cleanly", error)));
  // Running jobs get a moment to finish; the rest are given back for another process to take over.
  // Then the Neo4j driver (when one was opened) closes.
  await atMost(4_000, running.jobs.stop(JOB_GRACE_MS));
  await atMost(3_000, closeGraphStore());
  // Last: PGlite must be closed cleanly, or its data folder can be left damaged.
  await markbook.close();
}

function fail(error: unknown): never {
  if (error instanceof ConfigError || error instanceof DataDirLockedError) {
    process.stderr.write(`${error.message}\n`);
  } else {
    logger.error("Markbook could not start", error);
  }
  process.exit(1);
}

const startup = start();
let stopping = false;

async function shutdown(signal: NodeJS.Signals) {
  // A second signal is common (the terminal and npm both pass Ctrl-C on): never cut the database's
  // close short for it. A shutdown that hangs regardless can still be ended with SIGKILL.
  if (stopping) {
    logger.info(`${signal} again: still shutting down (closing the database)`);
    return;
  }
  stopping = true;
  logger.info(`${signal}: shutting down`);
  // Let the start finish its current step: the database is never closed in the middle of a migration.
  const running = await startup.catch(() => null);
  if (!running) return; // the start failed and has cleaned up after itself
  try {
    await stop(running);
    logger.info("Stopped");
    process.exit(0);
  } catch (error) {
    logger.error("Shutdown failed", error);
    process.exit(1);
  }
}

// Fire and forget: shutdown catches its own failures and exits with a status.
process.on("SIGINT", (signal) => void shutdown(signal));
process.on("SIGTERM", (signal) => void shutdown(signal));
startup.catch(fail);
