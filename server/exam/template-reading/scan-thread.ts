import { parentPort } from "node:worker_threads";
import { AppError } from "../../errors";
import { type ScanTask, type ThreadReply, readScanTask } from "./scan-threads";

/** A page thread of the template reader (scan-threads.ts): one page at a time, its areas sent back. */

if (!parentPort) throw new Error("the template reader's page thread runs as a worker thread");
const port = parentPort;

async function answer(id: number, task: ScanTask): Promise<ThreadReply> {
  try {
    return { id, ok: true, areas: await readScanTask(task) };
  } catch (error) {
    return error instanceof AppError ? { id, ok: false, code: error.code, message: error.message, param: error.param } : { id, ok: false, code: null, message: error instanceof Error ? error.message : String(error) };
  }
}

port.on("message", ({ id, task }: { id: number; task: ScanTask }) => {
  void answer(id, task).then((reply) => port.postMessage(reply));
});
