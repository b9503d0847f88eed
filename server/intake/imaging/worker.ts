import { parentPort } from "node:worker_threads";
import { AppError } from "../../errors";
import { stampScripts } from "../stamp";
import { assembleScript, nameBoxCrop, type OpenPile, openPile, readPilePage } from "./pile";
import { inspectPaper } from "./inspect";
import { redactScript, redactedPageImage } from "./redact";
import type { ImagingReplies, ImagingRequest, ReplyEnvelope, RequestEnvelope } from "./protocol";

/**
 * The imaging worker thread: one request at a time, in the order they come. Open piles stay here
 * between requests (the app thread only holds an id), so reading a 240-page pile interleaves with
 * other requests instead of holding the worker for a minute.
 */

const port = parentPort!;
const piles = new Map<number, OpenPile>();
let nextPileId = 1;
let queue = Promise.resolve();

port.on("message", (envelope: RequestEnvelope) => {
  queue = queue.then(() => handle(envelope)).catch(() => undefined);
});

async function handle({ id, request }: RequestEnvelope) {
  try {
    const value = await run(request);
    port.postMessage({ id, ok: true, value } satisfies ReplyEnvelope, transferables(value));
  } catch (error) {
    const reply: ReplyEnvelope =
      error instanceof AppError
        ? { id, ok: false, error: { code: error.code, message: error.message, param: error.param } }
        : { id, ok: false, error: { code: null, message: error instanceof Error ? error.message : String(error) } };
    port.postMessage(reply);
  }
}

async function run(request: ImagingRequest): Promise<ImagingReplies[ImagingRequest["kind"]]> {
  switch (request.kind) {
    case "openPile": {
      const pile = await openPile(request.pdf, { maxPages: request.maxPages });
      const pileId = nextPileId++;
      piles.set(pileId, pile);
      return { pileId, pageCount: pile.pageCount };
    }
    case "readPage": {
      const pile = piles.get(request.pileId);
      if (!pile) throw new Error("the pile is no longer open in the imaging worker");
      return readPilePage(pile, request.pilePage);
    }
    case "closePile":
      piles.delete(request.pileId);
      return null;
    case "assembleScript":
      return assembleScript(request.pages);
    case "stamp":
      return stampScripts(request.paper, request.batchCode, request.scripts, request.keepClear);
    case "nameBoxCrop":
      return nameBoxCrop(request.onePagePdf, request.rotation, request.rect, request.cover);
    case "inspectPaper":
      return inspectPaper(request.paper);
    case "redactScript":
      return redactScript(request.scriptPdf, request.covers);
    case "redactedPageImage":
      return redactedPageImage(request.onePagePdf, request.rotation, request.covers);
  }
}

/** The large byte arrays of a reply move to the app thread rather than being copied. */
function transferables(value: unknown): ArrayBuffer[] {
  const fields: unknown[] = value && typeof value === "object" && !(value instanceof Uint8Array) ? Object.values(value) : [value];
  const bytes = fields.find((field): field is Uint8Array => field instanceof Uint8Array);
  return bytes && bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength && bytes.buffer instanceof ArrayBuffer ? [bytes.buffer] : [];
}
