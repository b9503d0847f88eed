import { type ChildProcess, fork } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Zip, ZipPassThrough, strToU8 } from "fflate";
import { AppError, workerReplyError } from "../../../errors";
import { logger } from "../../../logger";
import { bundledWorkerEntry } from "../../../workers/bundle";
import { holdWorkerOpen } from "../../../workers/child-process";
import { type CoverSheet, type MarkedScriptDocument, markedPdfLimits } from "./document";
import type { MarkedPdfReplyEnvelope, MarkedPdfRequest, MarkedPdfRequestEnvelope } from "./protocol";

/**
 * Marked scripts as PDFs off the app's event loop, bounded as the intake's imaging is
 * (server/exam/intake/imaging/index.ts): a worker process, not a worker thread (V8 may abort the whole
 * process at a thread's resourceLimits), with its own heap limit, started on first use and replaced
 * when it dies. Each request also has a time limit: past it the process is ended and the request fails
 * with a sentence, so a script no check foresaw cannot hold the worker. One request at a time, in order.
 */

/** The worker's JavaScript heap: pdf-lib holds one script's objects (its scan's streams stay as bytes). */
const MARKED_PDF_HEAP_MB = 384;
/** How long one script's PDF (or one class's cover sheets) may take: a 40-page script takes well under a second. */
const MARKED_PDF_TIMEOUT_MS = 60_000;

const WORKER_DIED = "Making the PDF stopped unexpectedly; try again";
const OUT_OF_MEMORY = (what: string) => `The PDF of ${what} cannot be made: it needs more memory than one script may take. Upload its scan again, or leave it out.`;
const TOO_SLOW = (what: string, ms: number) => `The PDF of ${what} took longer than ${Math.round(ms / 1000)} seconds, the most one script may take, and was stopped. Try again; if it happens again, upload its scan again.`;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  what: string;
  timer: NodeJS.Timeout;
}

export interface MarkedPdfWorkerOptions {
  heapMb?: number;
  timeoutMs?: number;
}

export class MarkedPdfWorker {
  private worker: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  /** Why the current worker is being ended (a request took too long), for the requests it held. */
  private ending: { id: number; error: AppError } | null = null;
  private nextId = 1;
  /** Counts the workers started: a class PDF being built is lost when it changes. */
  private generation = 0;
  private readonly heapMb: number;
  private readonly timeoutMs: number;

  constructor(options: MarkedPdfWorkerOptions = {}) {
    this.heapMb = options.heapMb ?? MARKED_PDF_HEAP_MB;
    this.timeoutMs = options.timeoutMs ?? MARKED_PDF_TIMEOUT_MS;
  }

  /** One student's marked script as a PDF. */
  script(document: MarkedScriptDocument): Promise<Uint8Array> {
    return this.call<Uint8Array>({ kind: "script", document }, whoOf(document));
  }

  /** The class's cover sheets as one PDF, in the order given. */
  classFeedback(sheets: CoverSheet[], title = "Feedback"): Promise<Uint8Array> {
    return this.call<Uint8Array>({ kind: "classFeedback", sheets, title }, "this class");
  }

  /**
   * The class's marked scripts as one PDF, in the order given, each student's document sent (and read
   * from `documents`) only when the one before is in. The first script that cannot be added ends it with
   * its sentence (the zip, markedScriptsZip, makes the others and says which failed).
   */
  async classScripts(documents: AsyncIterable<MarkedScriptDocument> | Iterable<MarkedScriptDocument>, title = "Marked scripts"): Promise<Uint8Array> {
    const classId = await this.call<number>({ kind: "classOpen", title }, "this class");
    const generation = this.generation;
    const stillOpen = () => {
      if (this.generation !== generation || !this.worker) throw new AppError("unavailable", WORKER_DIED);
    };
    try {
      for await (const document of documents) {
        stillOpen();
        await this.call<null>({ kind: "classAdd", classId, document }, whoOf(document));
      }
      stillOpen();
      return await this.call<Uint8Array>({ kind: "classSave", classId }, "this class");
    } catch (error) {
      if (this.generation === generation && this.worker) this.call<null>({ kind: "classClose", classId }, "this class").catch(() => undefined);
      throw error;
    }
  }

  /** The worker process, for tests. */
  get process(): ChildProcess | null {
    return this.worker;
  }

  /** Ends the worker process (tests; a server shutting down). */
  stop() {
    this.worker?.kill("SIGKILL");
  }

  private call<T>(request: MarkedPdfRequest, what: string): Promise<T> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      // The clock starts when the request is sent; the worker does one at a time, so a request waits
      // behind the ones before it. A batch sends one script at a time (markedScriptsZip), so it never waits.
      const timer = setTimeout(() => {
        if (!this.pending.has(id) || this.worker !== worker) return;
        this.ending = { id, error: new AppError("unavailable", TOO_SLOW(what, this.timeoutMs)) };
        worker.kill("SIGKILL");
      }, this.timeoutMs);
      timer.unref();
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject, what, timer });
      worker.send({ id, request } satisfies MarkedPdfRequestEnvelope);
      holdWorkerOpen(worker, true);
    });
  }

  private started(): ChildProcess {
    if (this.worker) return this.worker;
    this.generation++;
    const worker = fork(fileURLToPath(workerEntry()), [], {
      execArgv: [`--max-old-space-size=${this.heapMb}`, "--max-semi-space-size=16"],
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    holdWorkerOpen(worker, false);
    worker.on("message", (reply: MarkedPdfReplyEnvelope) => {
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      this.pending.delete(reply.id);
      clearTimeout(pending.timer);
      if (this.pending.size === 0) holdWorkerOpen(worker, false);
      if (reply.ok) pending.resolve(reply.value instanceof Uint8Array ? new Uint8Array(reply.value.buffer, reply.value.byteOffset, reply.value.byteLength) : reply.value);
      else pending.reject(workerReplyError("marked PDF", reply.error));
    });
    worker.on("error", (error) => logger.error("marked-PDF worker failed", error));
    worker.on("exit", (code, signal) => {
      if (this.worker === worker) this.worker = null;
      const ending = this.ending;
      this.ending = null;
      // V8 giving up at its heap limit aborts the process (SIGABRT, or 134 from a shell).
      const outOfMemory = signal === "SIGABRT" || code === 134;
      if (this.pending.size > 0 && !ending) logger.warn(`marked-PDF worker exited (${signal ?? `code ${code}`}) with ${this.pending.size} request(s) in flight`);
      // One request at a time, in order: the oldest pending one is the one it was on, and only it is blamed.
      const inFlight = Math.min(...this.pending.keys());
      for (const [id, pending] of this.pending) {
        clearTimeout(pending.timer);
        if (ending && id === ending.id) pending.reject(ending.error);
        else if (outOfMemory && id === inFlight) pending.reject(new AppError("invalid", OUT_OF_MEMORY(pending.what)));
        else pending.reject(new AppError("unavailable", WORKER_DIED));
      }
      this.pending.clear();
    });
    this.worker = worker;
    return worker;
  }
}

const whoOf = (document: MarkedScriptDocument) => (typeof document?.who === "string" ? document.who.slice(0, 60) : "this script");


function workerEntry(): URL {
  return bundledWorkerEntry("marked-pdf-worker", fileURLToPath(new URL("./worker.ts", import.meta.url)), new URL("./worker.mjs", import.meta.url));
}


/**
 * The process's one marked-PDF worker, on globalThis as intake imaging's port is: Next's bundles of the
 * routes load their own copy of this module, whose `import.meta.url` is inside .next where no worker.ts
 * is; the server process makes the worker first (server/startup.ts), from the sources, and the routes
 * find that one here.
 */
const slot = globalThis as typeof globalThis & { __markbookMarkedPdfWorker?: MarkedPdfWorker };
/** The app's one marked-PDF worker (its process starts on first use). */
export const markedPdfWorker = () => (slot.__markbookMarkedPdfWorker ??= new MarkedPdfWorker());

/**
 * A file name for a student's PDF in the zip: their name (or "Script 17"), without the characters file
 * systems refuse, at most 100 characters, ".pdf"; a name met twice gets " (2)".
 */
export function zipEntryName(who: string, taken: Set<string>, extension = "pdf"): string {
  let base = who
    .normalize("NFC")
    .replace(/[\p{Cc}\p{Cf}/\\:*?"<>|]+/gu, " ")
    .replace(/\s+/g, " ")
    .replace(/^[\s.]+|[\s.]+$/g, "");
  if ([...base].length > 100) base = [...base].slice(0, 100).join("").trim();
  if (!base) base = "Script";
  let name = `${base}.${extension}`;
  for (let copy = 2; taken.has(name.toLowerCase()); copy++) name = `${base} (${copy}).${extension}`;
  taken.add(name.toLowerCase());
  return name;
}

export interface ZipOptions {
  worker?: MarkedPdfWorker;
}

/**
 * The batch's marked scripts as a zip, one PDF per student in the order given, streamed: the next
 * student's document is taken from `documents` (a loader reading one at a time) and rendered only when
 * the reader wants more, and each PDF goes into the zip as soon as it is made (stored, not deflated: a
 * scan's JPEGs do not shrink). At most one student's scan and PDF are in memory at once. A student whose
 * PDF cannot be made (their scan is damaged, it breaks a limit) gets "<name>.txt" with the sentence
 * instead, and the others are still made; a worker that cannot run at all ends the stream with its error.
 */
export function markedScriptsZip(documents: AsyncIterable<MarkedScriptDocument> | Iterable<MarkedScriptDocument>, options: ZipOptions = {}): ReadableStream<Uint8Array> {
  const worker = options.worker ?? markedPdfWorker();
  const iterator = Symbol.asyncIterator in documents ? documents[Symbol.asyncIterator]() : documents[Symbol.iterator]();
  const taken = new Set<string>();
  let students = 0;
  let zip: Zip;
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        zip = new Zip((error, chunk, final) => {
          if (error) return controller.error(error);
          if (chunk.length > 0) controller.enqueue(chunk);
          if (final) controller.close();
        });
      },
      async pull() {
        const next = await iterator.next();
        if (next.done) {
          zip.end();
          return;
        }
        if (++students > markedPdfLimits.students) {
          throw new AppError("invalid", `One zip holds at most ${markedPdfLimits.students} students' scripts.`);
        }
        const document = next.value;
        const who = typeof document.who === "string" ? document.who : "Script";
        let entry: ZipPassThrough;
        let bytes: Uint8Array;
        try {
          bytes = await worker.script(document);
          entry = new ZipPassThrough(zipEntryName(who, taken));
        } catch (error) {
          if (!(error instanceof AppError) || error.code !== "invalid") throw error;
          bytes = strToU8(`${error.message}\n`);
          entry = new ZipPassThrough(zipEntryName(`${who} - not made`, taken, "txt"));
        }
        zip.add(entry);
        entry.push(bytes, true);
      },
      async cancel() {
        zip?.terminate();
        await (iterator as AsyncIterator<MarkedScriptDocument>).return?.();
      },
    },
    { highWaterMark: 0 },
  );
}
