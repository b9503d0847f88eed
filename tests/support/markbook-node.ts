import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

/**
 * Markbook processes started by a test, as an operator starts app nodes: `tsx server.ts` on the
 * production build, each with its own port and data folder, configured only by environment. The
 * process is node itself (tsx as a loader, no npm or npx wrapper), so a SIGKILL kills the app node.
 */
export interface MarkbookNode {
  name: string;
  url: string;
  pid: number;
  /** What the process wrote to stderr, for the failure message of a test. */
  log(): string;
  /** SIGTERM (a graceful shutdown) or SIGKILL (a crash); resolves when the process has exited. */
  stop(signal?: "SIGTERM" | "SIGKILL"): Promise<void>;
}

const READY_TIMEOUT_MS = 120_000;

/** Runs `next build` when .next holds no production build (benchmarks start nodes on their own). */
export function ensureProductionBuild(): void {
  if (fs.existsSync(path.join(".next", "BUILD_ID"))) return;
  console.log("No production build: running next build…");
  const build = spawnSync(path.join("node_modules", ".bin", "next"), ["build"], { stdio: "inherit" });
  if (build.status !== 0) throw new Error("next build failed");
}

function tsxArguments(script: string, ...rest: string[]): string[] {
  return ["--import", "tsx", script, ...rest];
}

/** Starts `server.ts` and resolves once its health answers, or rejects with its log if it exits. */
export async function startMarkbookNode(options: {
  name: string;
  port: number;
  env: Record<string, string>;
  /** Called with the node as soon as its process exists, before it is ready (for clean-up). */
  onSpawn?: (node: MarkbookNode) => void;
}): Promise<MarkbookNode> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `markbook-${options.name}-`));
  const child = spawn(process.execPath, tsxArguments("server.ts"), {
    env: { ...process.env, HOST: "127.0.0.1", ...options.env, PORT: String(options.port), DATA_DIR: dataDir },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    stderr = (stderr + chunk).slice(-20_000);
  });
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const url = `http://127.0.0.1:${options.port}`;
  const node: MarkbookNode = {
    name: options.name,
    url,
    pid: child.pid!,
    log: () => stderr,
    async stop(signal = "SIGTERM") {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
  options.onSpawn?.(node);
  const deadline = Date.now() + READY_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${options.name} exited with ${child.exitCode} before it was ready:\n${stderr}`);
    const healthy = await fetch(`${url}/v1/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy) return node;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  await node.stop("SIGKILL");
  throw new Error(`${options.name} was not ready after ${READY_TIMEOUT_MS / 1000} s:\n${stderr}`);
}

/** Runs the operator's command line (`scripts/markbook.ts`) and returns what it printed. */
export function runMarkbookCli(env: Record<string, string>, ...args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, tsxArguments("scripts/markbook.ts", ...args), {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout!.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("exit", (code) => (code === 0 ? resolve(stdout.trim()) : reject(new Error(`markbook ${args.join(" ")} exited with ${code}: ${stderr}`))));
  });
}
