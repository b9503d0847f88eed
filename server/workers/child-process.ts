import type { ChildProcess } from "node:child_process";

/**
 * Whether a worker process (and its IPC channel) keeps the app's process alive: only while it has work,
 * so a test or a CLI run that is done ends without stopping the worker first.
 */
export function holdWorkerOpen(worker: ChildProcess, hold: boolean) {
  const channel = worker.channel as { ref(): void; unref(): void } | null | undefined;
  if (hold) {
    worker.ref();
    channel?.ref();
  } else {
    worker.unref();
    channel?.unref();
  }
}
