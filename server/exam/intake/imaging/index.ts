import { type ChildProcess, fork } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AppError, workerReplyError } from "../../../errors";
import { env } from "../../../env";
import { logger } from "../../../logger";
import { bundledWorkerEntry } from "../../../workers/bundle";
import { holdWorkerOpen } from "../../../workers/child-process";
import type { AssembleScript, PageReading, QuarterTurn, ReadPile, ReadPileOptions } from "../page-reading";
import type { SignInSlipSheet } from "../../../identity/sign-in-slips";
import type { PageRect, ScriptToStamp, StampOptions, StampedScripts } from "../stamp";
import type { TickBox } from "../../../../lib/rules/tick-boxes";
import type { ImagingReplies, ImagingRequest, ReplyEnvelope, RequestEnvelope } from "./protocol";
import type { AreasReading } from "../../ticks/reading";
import type { ReadAreasInput } from "./read-areas";
import type { TemplateProposal } from "../../template-reading/proposal";
import type { SchemeLine } from "../../mark-scheme/read-scheme";

/**
 * Class-set imaging off the app's event loop and out of its memory: one worker process per app process,
 * started on first use, requests queued in order (the worker does one at a time). A worker that dies
 * (a file that needs more memory than it may have, a crash) is replaced on the next request; the
 * requests it held fail with a clear error. Byte arrays are copied over the IPC channel (structured
 * clone), except a class set's pile, tens of megabytes, which the worker reads from a file (withPileFile).
 */
export interface IntakeImaging {
  readPile: ReadPile;
  assembleScript: AssembleScript;
  /** stampScripts (server/exam/intake/stamp.ts), run in the worker: a class set costs about a second of CPU. */
  stamp: (paper: Uint8Array, batchCode: string, scripts: ScriptToStamp[], keepClear: PageRect[], options?: StampOptions) => Promise<StampedScripts>;
  /**
   * The upright crop of a page-relative rectangle of a scanned page (with a small margin), as JPEG, with
   * `cover` painted over first when given; null when the page has no pixels.
   */
  nameBoxCrop: (onePagePdf: Uint8Array, rotation: QuarterTurn, rect: Omit<PageRect, "page">, cover?: Omit<PageRect, "page">) => Promise<Uint8Array | null>;
  /** inspectPaper (server/exam/intake/imaging/inspect.ts): a template paper's page count, or the sentence that refuses it. */
  inspectPaper: (paper: Uint8Array) => Promise<{ pageCount: number }>;
  /** redactScript (server/exam/intake/imaging/redact.ts): a script's PDF as pictures of its pages, `covers` painted over. */
  redactScript: (scriptPdf: Uint8Array, covers: PageRect[]) => Promise<Uint8Array>;
  /** redactedPageImage (redact.ts): one scanned page, upright, as JPEG, `covers` painted over; null when it has no pixels. */
  redactedPageImage: (onePagePdf: Uint8Array, rotation: QuarterTurn, covers: Omit<PageRect, "page">[]) => Promise<Uint8Array | null>;
  /** renderSignInSlips (server/identity/sign-in-slips-pdf.ts): the slips of people's first sign-in as one PDF. */
  signInSlips: (sheet: SignInSlipSheet) => Promise<Uint8Array>;
  /** findTickBoxes (server/exam/ticks/find-boxes.ts): the tick boxes printed inside an area of a template paper's page. */
  findTickBoxes: (paper: Uint8Array, page: number, area: Omit<PageRect, "page">) => Promise<TickBox[]>;
  /** readAreas (server/exam/intake/imaging/read-areas.ts): a scanned page's tick boxes and written areas, read against its template page. */
  readAreas: (input: ReadAreasInput) => Promise<AreasReading>;
  /** proposeTemplate (server/exam/template-reading/read-paper.ts): a template proposed from a paper's own text and drawings. */
  proposeTemplate: (paper: Uint8Array) => Promise<TemplateProposal>;
  /** readMarkScheme (server/exam/mark-scheme/read-scheme-pdf.ts): a mark scheme's PDF as lines of table cells, for the scheme reader. */
  readMarkScheme: (pdf: Uint8Array) => Promise<SchemeLine[]>;
  /** answerCrop (answer-crop.ts): a response area of a scanned page, upright, as PNG, `covers` painted over; null when it has no pixels. */
  answerCrop: (onePagePdf: Uint8Array, rotation: QuarterTurn, rect: Omit<PageRect, "page">, covers: Omit<PageRect, "page">[]) => Promise<Uint8Array | null>;
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
}

const WORKER_DIED = "The scan reader stopped unexpectedly while working on this file; try again";
/** The request the worker was working on when it ran out of memory: the file did it, so trying again would not help. */
const OUT_OF_MEMORY =
  "This file needs more memory to read than one file may take: it may be damaged, or made to harm the server. Scan it again, or export the PDF again";

/**
 * Where the worker's old generation starts (MB). Its live heap is small (20–35 MB: an open pile's pdf-lib
 * objects, pdf.js once a template page is drawn), and from V8's default start the limit stayed just
 * above it: a full collection about every page of a pile (175 for 240 pages, 3 s of the worker's time,
 * bench:intake). Started here, a pile's pages take a few full collections a slice. The heap's limit is
 * unchanged (below).
 */
const INITIAL_OLD_SPACE_MB = 256;

/**
 * The worker's JavaScript heap: a file that would need more ends the worker process, never the app.
 * A process, not a worker thread: at a worker thread's resourceLimits V8 may abort the whole process
 * ("Reached heap limit", seen in about half the runs of tests/intake-imaging-limits.test.ts). Pixels
 * live outside the heap (canvas, sharp, typed arrays): the caps of limits.ts bound those. The worker
 * runs plain node on the bundled entry: the app's own flags (tsx's loader) are not passed on.
 */
const imagingWorkerArgs = () => {
  const heapMb = env().IMAGING_WORKER_HEAP_MB;
  return [`--max-old-space-size=${heapMb}`, "--max-semi-space-size=32", `--initial-old-space-size=${Math.min(INITIAL_OLD_SPACE_MB, Math.floor(heapMb / 2))}`];
};

/** Whether a worker process's end was V8 giving up at its heap limit (it aborts: SIGABRT, or 134 from a shell). */
const diedOfMemory = (code: number | null, signal: NodeJS.Signals | null) => signal === "SIGABRT" || code === 134;

class ImagingWorker {
  private worker: ChildProcess | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  /** Counts the workers started: what a worker holds (an open pile) is gone when it changes. */
  generation = 0;

  call<K extends ImagingRequest["kind"]>(request: Extract<ImagingRequest, { kind: K }>): Promise<ImagingReplies[K]> {
    const worker = this.started();
    const id = this.nextId++;
    return new Promise<ImagingReplies[K]>((resolve, reject) => {
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject });
      worker.send({ id, request } satisfies RequestEnvelope);
      // Only a request in flight keeps the app's process alive, not an idle worker.
      holdWorkerOpen(worker, true);
    });
  }

  /** The worker process, for tests that stop it as a crash would. */
  get process(): ChildProcess | null {
    return this.worker;
  }

  /** Whether worker `generation` is still the one running (or none has replaced it yet). */
  alive(generation: number): boolean {
    return this.worker !== null && this.generation === generation;
  }

  private started(): ChildProcess {
    if (this.worker) return this.worker;
    this.generation++;
    const worker = fork(fileURLToPath(imagingWorkerEntry()), [], {
      execArgv: imagingWorkerArgs(),
      serialization: "advanced",
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    holdWorkerOpen(worker, false);
    worker.on("message", (reply: ReplyEnvelope) => {
      const pending = this.pending.get(reply.id);
      if (!pending) return;
      this.pending.delete(reply.id);
      if (this.pending.size === 0) holdWorkerOpen(worker, false);
      if (reply.ok) pending.resolve(reply.value);
      else pending.reject(workerReplyError("intake imaging", reply.error));
    });
    worker.on("error", (error) => logger.error("intake imaging worker failed", error));
    worker.on("exit", (code, signal) => {
      if (this.worker === worker) this.worker = null;
      const outOfMemory = diedOfMemory(code, signal);
      if (this.pending.size > 0) logger.warn(`intake imaging worker exited (${signal ?? `code ${code}`}) with ${this.pending.size} request(s) in flight`);
      // The worker does one request at a time, in order: the oldest pending one is the one it was on.
      // Only that file is blamed; the others (perhaps another school's) are simply tried again.
      const inFlight = Math.min(...this.pending.keys());
      for (const [id, pending] of this.pending) {
        pending.reject(outOfMemory && id === inFlight ? new AppError("invalid", OUT_OF_MEMORY, "file") : new AppError("unavailable", WORKER_DIED));
      }
      this.pending.clear();
    });
    this.worker = worker;
    return worker;
  }
}


function imagingWorkerEntry(): URL {
  return bundledWorkerEntry("intake-imaging-worker", fileURLToPath(new URL("./worker.ts", import.meta.url)), new URL("./worker.mjs", import.meta.url));
}


let shared: ImagingWorker | null = null;
const imagingWorker = () => (shared ??= new ImagingWorker());

/** The worker process currently running, if any (tests stop it to see a crash handled). */
export function imagingWorkerProcess(): ChildProcess | null {
  return shared?.process ?? null;
}

/**
 * The pile handed to the worker as a file of its own (written off the event loop, read by the worker,
 * removed once it has opened the pile): sent over the channel, a 70 MB pile was serialised on the app's
 * thread for ~0.2 s at every slice of a pile's job (the teacher's other requests waited behind it), and
 * the worker joined its chunks by copying.
 */
async function withPileFile<T>(pdf: Uint8Array, open: (path: string) => Promise<T>): Promise<T> {
  const folder = await mkdtemp(path.join(os.tmpdir(), "markbook-pile-"));
  try {
    const file = path.join(folder, "pile.pdf");
    await writeFile(file, pdf, { mode: 0o600 });
    return await open(file);
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** Pages of a pile asked of the worker before the caller takes them: each is a one-page PDF (~300 kB) waiting in the app. */
const READ_AHEAD = 2;

async function* readPile(pdf: Uint8Array, options: ReadPileOptions = {}): AsyncGenerator<PageReading> {
  const worker = imagingWorker();
  options.signal?.throwIfAborted();
  const { pileId, pageCount } = await withPileFile(pdf, (file) => worker.call({ kind: "openPile", path: file, maxPages: options.maxPages, areas: options.areas }));
  const generation = worker.generation;
  const request = (pilePage: number) => {
    const reading = worker.call({ kind: "readPage", pileId, pilePage });
    // Handled here too: a page read ahead that the caller never takes must not be an unhandled rejection.
    reading.catch(() => undefined);
    return reading;
  };
  try {
    // Pages read ahead: the worker reads the next pages while the caller stores this one, so the two
    // processes work side by side, and a slow page on either side (one with areas to read, a slow
    // commit) is taken up by the other. The worker still reads one page at a time (decoding the next
    // meanwhile: at most two pages' pixels at once, pile.ts), and other requests (printing, a crop) slip in between pages.
    const first = Math.max(1, options.fromPage ?? 1);
    const ahead: Promise<PageReading>[] = [];
    let requested = first - 1;
    const requestAhead = () => {
      while (ahead.length < READ_AHEAD && requested < pageCount) ahead.push(request(++requested));
    };
    for (let pilePage = first; pilePage <= pageCount; pilePage++) {
      options.signal?.throwIfAborted();
      // The pile was open in a worker that has died since (while serving another request).
      if (!worker.alive(generation)) throw new AppError("unavailable", WORKER_DIED);
      requestAhead();
      const current = ahead.shift()!;
      requestAhead();
      yield await current;
    }
  } finally {
    if (worker.alive(generation)) worker.call({ kind: "closePile", pileId }).catch(() => undefined);
  }
}

export function workerImaging(): IntakeImaging {
  const worker = imagingWorker();
  return {
    readPile,
    assembleScript: (pages) => worker.call({ kind: "assembleScript", pages }),
    stamp: (paper, batchCode, scripts, keepClear, options) => worker.call({ kind: "stamp", paper, batchCode, scripts, keepClear, options }),
    nameBoxCrop: (onePagePdf, rotation, rect, cover) => worker.call({ kind: "nameBoxCrop", onePagePdf, rotation, rect, cover }),
    inspectPaper: (paper) => worker.call({ kind: "inspectPaper", paper }),
    redactScript: (scriptPdf, covers) => worker.call({ kind: "redactScript", scriptPdf, covers }),
    redactedPageImage: (onePagePdf, rotation, covers) => worker.call({ kind: "redactedPageImage", onePagePdf, rotation, covers }),
    signInSlips: (sheet) => worker.call({ kind: "signInSlips", sheet }),
    findTickBoxes: (paper, page, area) => worker.call({ kind: "findTickBoxes", paper, page, area }),
    readAreas: (input) => worker.call({ kind: "readAreas", ...input }),
    proposeTemplate: (paper) => worker.call({ kind: "proposeTemplate", paper }),
    readMarkScheme: (pdf) => worker.call({ kind: "readMarkScheme", pdf }),
    answerCrop: (onePagePdf, rotation, rect, covers) => worker.call({ kind: "answerCrop", onePagePdf, rotation, rect, covers }),
  };
}
