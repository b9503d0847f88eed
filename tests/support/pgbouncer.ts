import { type ChildProcess, spawn } from "node:child_process";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import { freePort } from "./free-port";

/** Debian's PgBouncer (`apt-get install pgbouncer`; .ci/run installs it beside PostgreSQL). */
const PGBOUNCER_PATH = process.env.PGBOUNCER_PATH ?? "/usr/sbin/pgbouncer";

/** Why the PgBouncer tests cannot run here, or null when they can. */
export function pgbouncerMissing(): string | null {
  return fs.existsSync(PGBOUNCER_PATH) ? null : `no PgBouncer at ${PGBOUNCER_PATH} (apt-get install pgbouncer, or set PGBOUNCER_PATH)`;
}

export interface RunningPgbouncer {
  /** `url` (a PostgreSQL URL) with its host and port replaced by the pooler's. */
  through(url: string): string;
  stop(): Promise<void>;
}

/**
 * Starts PgBouncer in transaction mode in front of the PostgreSQL of `serverUrl` (its user and password
 * are the pooler's only account), on a free port of 127.0.0.1, with a small server pool so that clients
 * share server connections as they do in production. Run as root (CI), it drops to the postgres user.
 */
export async function startPgbouncer(serverUrl: string, options: { poolSize?: number } = {}): Promise<RunningPgbouncer> {
  const server = new URL(serverUrl);
  const user = decodeURIComponent(server.username);
  const password = decodeURIComponent(server.password);
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-pgbouncer-"));
  fs.chmodSync(dir, 0o755);
  const quote = (value: string) => `"${value.replace(/"/g, '""')}"`;
  fs.writeFileSync(path.join(dir, "users.txt"), `${quote(user)} ${quote(password)}\n`, { mode: 0o644 });
  const host = server.hostname === "localhost" ? "127.0.0.1" : server.hostname;
  fs.writeFileSync(
    path.join(dir, "pgbouncer.ini"),
    [
      "[databases]",
      `* = host=${host} port=${server.port || 5432}`,
      "[pgbouncer]",
      "listen_addr = 127.0.0.1",
      `listen_port = ${port}`,
      "unix_socket_dir =", // TCP only
      "auth_type = plain",
      `auth_file = ${path.join(dir, "users.txt")}`,
      "pool_mode = transaction",
      `default_pool_size = ${options.poolSize ?? 4}`,
      "max_client_conn = 200",
      "ignore_startup_parameters = extra_float_digits",
      "",
    ].join("\n"),
    { mode: 0o644 },
  );
  const asRoot = process.getuid?.() === 0;
  const child: ChildProcess = spawn(PGBOUNCER_PATH, [...(asRoot ? ["-u", "postgres"] : []), path.join(dir, "pgbouncer.ini")], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  // Ready once it accepts a connection (bounded: 100 tries, 50 ms apart).
  for (let attempt = 0; ; attempt += 1) {
    if (child.exitCode !== null) throw new Error(`PgBouncer exited at start: ${stderr}`);
    if (await accepts(port)) break;
    if (attempt >= 100) {
      child.kill("SIGKILL");
      throw new Error(`PgBouncer did not listen on port ${port}: ${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return {
    through(url) {
      const parsed = new URL(url);
      parsed.hostname = "127.0.0.1";
      parsed.port = String(port);
      return parsed.toString();
    },
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGINT"); // PgBouncer's "safe shutdown" waits for clients; SIGINT is the fast one
        await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 5_000))]);
        if (child.exitCode === null) child.kill("SIGKILL");
      }
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
