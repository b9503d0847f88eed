import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { Worker } from "node:worker_threads";
import { PDFDocument } from "pdf-lib";
import { AppError, type AppErrorCode } from "../../errors";
import { logger } from "../../logger";
import { bundledWorkerEntry } from "../../workers/bundle";
import type { GreyImage } from "../intake/imaging/pdfjs";
import { pagePixels } from "../intake/imaging/page-pixels";
import { type ScannedArea, scannedAreas } from "./scanned-page";

/**
 * The pages of a scanned paper read side by side (issue 37: "a 12-page paper is read in ≤ 3 s on two
 * cores"): worker threads, as many as the machine has cores up to two, each reading one page at a time
 * (decoding its JPEG and finding its boxes and lines, scan-thread.ts). A thread holds one page's pixels
 * at once. Pages are taken in turn from each read waiting (round robin), not in the order they came: a
 * long paper does not hold up another school's short one. Where no thread can start, a page is read on
 * the calling thread, as before.
 */

/**
 * A page to read: a one-page PDF whose page may be one scanned JPEG, or pixels already rendered (moved
 * to the thread when they own their buffer: the sender's copy is then empty).
 */
export type ScanTask = { kind: "pdf"; pdf: Uint8Array } | { kind: "pixels"; image: GreyImage; pxPerMm: number };

/**
 * One page's areas, or null when a "pdf" page is not one JPEG (the caller renders it and sends pixels).
 * The same work a thread does and the calling thread does when there are none.
 */
export async function readScanTask(task: ScanTask): Promise<ScannedArea[] | null> {
  if (task.kind === "pixels") return scannedAreas(task.image, task.pxPerMm);
  const single = await PDFDocument.load(task.pdf, { updateMetadata: false });
  // A 300 dpi scan is decoded at half (libjpeg shrinks while decoding: a quarter of the work). A page
  // pagePixels cannot take is left to the caller, which renders it.
  const jpeg = await pagePixels(single, new Uint8Array(0), { halveFrom: 250 }).catch(() => null);
  return jpeg && jpeg.data.length > 0 ? scannedAreas(jpeg, jpeg.dpi / 25.4) : null;
}

export type ThreadReply = { id: number; ok: true; areas: ScannedArea[] | null } | { id: number; ok: false; code: string | null; message: string; param?: string };

interface Job {
  id: number;
  task: ScanTask;
  resolve: (areas: ScannedArea[] | null) => void;
  reject: (error: Error) => void;
}

interface Thread {
  worker: Worker;
  job: Job | null;
  answered: boolean;
}

const THREADS = Math.max(1, Math.min(2, os.availableParallelism()));

class ScanPool {
  private readonly threads: Thread[] = [];
  /** Each read's waiting pages; a thread takes the next page of the read after the one it served last. */
  private readonly reads: Job[][] = [];
  private turn = 0;
  private nextId = 1;
  private broken = false;

  /** A read's pages, each answered as it is done. */
  read(tasks: ScanTask[]): Promise<ScannedArea[] | null>[] {
    if (this.broken || tasks.length === 0) return tasks.map((task) => readScanTask(task));
    const jobs: Job[] = [];
    const answers = tasks.map(
      (task) =>
        new Promise<ScannedArea[] | null>((resolve, reject) => {
          jobs.push({ id: this.nextId++, task, resolve, reject });
        }),
    );
    this.reads.push(jobs);
    this.dispatch();
    return answers;
  }

  private nextJob(): Job | null {
    if (this.reads.length === 0) return null;
    this.turn %= this.reads.length;
    const jobs = this.reads[this.turn]!;
    const job = jobs.shift()!;
    if (jobs.length === 0) this.reads.splice(this.turn, 1);
    else this.turn++;
    return job;
  }

  private dispatch() {
    while (this.reads.length > 0) {
      let thread = this.threads.find((candidate) => candidate.job === null);
      if (!thread && this.threads.length < THREADS) thread = this.start() ?? undefined;
      if (!thread) {
        if (this.broken) this.drainInline();
        return;
      }
      const job = this.nextJob()!;
      thread.job = job;
      thread.worker.ref();
      // Pixels are moved to the thread, not copied, when they are the whole of their buffer (never a view of another's).
      const pixels = job.task.kind === "pixels" ? job.task.image.data : null;
      const transfer = pixels && pixels.byteOffset === 0 && pixels.byteLength === pixels.buffer.byteLength ? [pixels.buffer as ArrayBuffer] : [];
      thread.worker.postMessage({ id: job.id, task: job.task }, transfer);
    }
  }

  /** Without threads, every page waiting is read here, one by one. */
  private drainInline() {
    for (let job = this.nextJob(); job; job = this.nextJob()) {
      const { resolve, reject } = job;
      readScanTask(job.task).then(resolve, reject);
    }
  }

  private start(): Thread | null {
    let worker: Worker;
    try {
      worker = new Worker(scanThreadEntry());
    } catch (error) {
      logger.warn(`template reading: no page threads (${(error as Error).message}); pages are read one by one`);
      this.broken = true;
      return null;
    }
    const thread: Thread = { worker, job: null, answered: false };
    worker.unref();
    worker.on("message", (reply: ThreadReply) => {
      const job = thread.job;
      if (!job || job.id !== reply.id) return;
      thread.job = null;
      thread.answered = true;
      worker.unref();
      if (reply.ok) job.resolve(reply.areas);
      else job.reject(reply.code === null ? new Error(reply.message) : new AppError(reply.code as AppErrorCode, reply.message, reply.param));
      this.dispatch();
    });
    const gone = (error: Error) => {
      const index = this.threads.indexOf(thread);
      if (index < 0) return;
      this.threads.splice(index, 1);
      logger.warn(`template reading: a page thread stopped (${error.message})`);
      // One that never answered cannot start here (its entry does not load): no more are tried.
      if (!thread.answered) this.broken = true;
      // The page it was reading is read here instead; the next page starts a new thread.
      const job = thread.job;
      thread.job = null;
      if (job) readScanTask(job.task).then(job.resolve, job.reject);
      this.dispatch();
    };
    worker.on("error", gone);
    worker.on("exit", (code) => gone(new Error(`exit code ${code}`)));
    this.threads.push(thread);
    return thread;
  }
}

let pool: ScanPool | null = null;

/** Pages read on the page threads; each answer is null when its page is not one JPEG. */
export function readScannedPages(tasks: ScanTask[]): Promise<ScannedArea[] | null>[] {
  return (pool ??= new ScanPool()).read(tasks);
}

/**
 * The thread's entry, bundled to plain JavaScript (server/workers/bundle.ts). This module is itself
 * bundled into the imaging worker, whose file lies in node_modules/.cache: the source is then found
 * from the project's folder.
 */
function scanThreadEntry(): URL {
  let source = fileURLToPath(new URL("./scan-thread.ts", import.meta.url));
  if (!fs.existsSync(source)) {
    let folder = path.dirname(source);
    while (!fs.existsSync(path.join(folder, "package.json")) && path.dirname(folder) !== folder) folder = path.dirname(folder);
    source = path.join(folder, "server", "exam", "template-reading", "scan-thread.ts");
  }
  if (!fs.existsSync(source)) throw new Error(`${source} is missing`);
  return bundledWorkerEntry("template-scan-thread", source, pathToFileURL(path.join(path.dirname(source), "scan-thread.mjs")));
}
