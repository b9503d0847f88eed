import { pdfjs } from "react-pdf";
import { pdfWorkerPort } from "./pdf-worker";

/*
 * Scans as pdf.js documents and their pages painted on canvases, kept for the script on screen and the
 * scripts around it, so that moving to the next script only puts canvases that are already painted in
 * place. Only `pdfjs` is taken from react-pdf (its components, and the pdf.js viewer code they pull in,
 * stay out of the marking screen's bundle). Browser only: load it through next/dynamic.
 */

// One worker serves every scan (started early by the marking screen, see pdf-worker.ts).
const worker = pdfjs.PDFWorker.create({ name: "markbook-scans", port: pdfWorkerPort() });

type PdfDocument = Awaited<ReturnType<typeof pdfjs.getDocument>["promise"]>;

export interface ScanLayout {
  pageCount: number;
  /** Height ÷ width of each page, so the pages take their place before they are painted. */
  ratios: number[];
}

interface Painted {
  canvas: HTMLCanvasElement;
  /** The CSS width it was painted for. */
  width: number;
}

interface OpenScan {
  task: ReturnType<typeof pdfjs.getDocument>;
  document: Promise<PdfDocument>;
  layout: Promise<ScanLayout>;
  known: ScanLayout | null;
  painted: Map<number, Painted>;
}

interface PaintJob {
  scanId: string;
  page: number;
  width: number;
  /** Lower runs first: the page on screen, then the rest of the script, then the scripts to come. */
  priority: number;
  promise: Promise<HTMLCanvasElement>;
  resolve: (canvas: HTMLCanvasElement) => void;
  reject: (error: unknown) => void;
}

const scans = new Map<string, OpenScan>();
const waiting: PaintJob[] = [];
let running: PaintJob | null = null;

class ScanReleasedError extends Error {
  constructor() {
    super("The scan was released");
  }
}

/** Opens a scan (once per submission) and resolves with its page layout. */
export function openScan(scanId: string, bytes: ArrayBuffer): Promise<ScanLayout> {
  const open = scans.get(scanId);
  if (open) return open.layout;
  // pdf.js takes ownership of the array it is given: it gets a copy, the query cache keeps the bytes.
  const task = pdfjs.getDocument({ data: new Uint8Array(bytes.slice(0)), worker });
  const document = task.promise;
  const scan: OpenScan = {
    task,
    document,
    known: null,
    painted: new Map(),
    layout: document.then(async (pdf) => {
      const pages = await Promise.all(Array.from({ length: pdf.numPages }, (_, index) => pdf.getPage(index + 1)));
      const layout = {
        pageCount: pdf.numPages,
        ratios: pages.map((page) => {
          const { width, height } = page.getViewport({ scale: 1 });
          return height / width;
        }),
      };
      scan.known = layout;
      return layout;
    }),
  };
  scan.layout.catch(() => {}); // callers handle it; this only keeps a failed open from being "unhandled"
  scans.set(scanId, scan);
  return scan.layout;
}

/** The layout of a scan already opened, at once (so a prepared script renders in one pass). */
export function scanLayout(scanId: string): ScanLayout | null {
  return scans.get(scanId)?.known ?? null;
}

/** The latest canvas painted for a page, whatever width it was painted for. */
export function paintedPage(scanId: string, page: number): Painted | undefined {
  return scans.get(scanId)?.painted.get(page);
}

/** A canvas of the page painted for `width` CSS pixels; paints run one at a time, by priority. */
export function paintPage(scanId: string, page: number, width: number, priority: number): Promise<HTMLCanvasElement> {
  const painted = paintedPage(scanId, page);
  if (painted?.width === width) return Promise.resolve(painted.canvas);
  const same = (job: PaintJob | null) => job && job.scanId === scanId && job.page === page && job.width === width;
  if (same(running)) return running!.promise;
  const queued = waiting.find(same);
  if (queued) {
    queued.priority = Math.min(queued.priority, priority);
    return queued.promise;
  }
  let resolve!: PaintJob["resolve"];
  let reject!: PaintJob["reject"];
  const promise = new Promise<HTMLCanvasElement>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  promise.catch(() => {});
  waiting.push({ scanId, page, width, priority, promise, resolve, reject });
  void paintNext();
  return promise;
}

/** Closes every scan not listed, and drops its waiting paints. */
export function keepScans(scanIds: string[]): void {
  for (const [scanId, scan] of scans) {
    if (scanIds.includes(scanId)) continue;
    scans.delete(scanId);
    scan.painted.clear();
    void scan.task.destroy().catch(() => {});
  }
  for (let index = waiting.length - 1; index >= 0; index--) {
    const job = waiting[index]!;
    if (scans.has(job.scanId)) continue;
    waiting.splice(index, 1);
    job.reject(new ScanReleasedError());
  }
}

async function paintNext(): Promise<void> {
  if (running || waiting.length === 0) return;
  // The first of the most urgent (a stable choice: earlier requests first among equals).
  const job = waiting.reduce((best, candidate) => (candidate.priority < best.priority ? candidate : best));
  waiting.splice(waiting.indexOf(job), 1);
  running = job;
  try {
    job.resolve(await paint(job));
  } catch (error) {
    job.reject(error);
  } finally {
    running = null;
    void paintNext();
  }
}

async function paint({ scanId, page, width }: PaintJob): Promise<HTMLCanvasElement> {
  const scan = scans.get(scanId);
  if (!scan) throw new ScanReleasedError();
  const pdfPage = await (await scan.document).getPage(page);
  const pixelRatio = window.devicePixelRatio || 1;
  const viewport = pdfPage.getViewport({ scale: (width / pdfPage.getViewport({ scale: 1 }).width) * pixelRatio });
  const canvas = document.createElement("canvas");
  canvas.width = Math.floor(viewport.width);
  canvas.height = Math.floor(viewport.height);
  // Same class as react-pdf's page canvases (the template editor's), so one selector finds a painted page.
  canvas.className = "scan-viewer__canvas react-pdf__Page__canvas";
  canvas.style.cssText = "display: block; width: 100%; height: auto;";
  await pdfPage.render({ canvas, viewport }).promise;
  if (scans.get(scanId) !== scan) throw new ScanReleasedError();
  scan.painted.set(page, { canvas, width });
  return canvas;
}
