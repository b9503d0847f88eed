import { readFile } from "node:fs/promises";
import { AppError } from "../../../errors";
import { renderSignInSlips } from "../../../identity/sign-in-slips-pdf";
import { stampScripts } from "../stamp";
import { assembleScript, nameBoxCrop, type OpenPile, openPile, readPilePage } from "./pile";
import { inspectPaper } from "./inspect";
import { readAreas } from "./read-areas";
import { redactScript, redactedPageImage } from "./redact";
import { answerCrop } from "./answer-crop";
import { findTickBoxes } from "./find-tick-boxes";
import { proposeTemplate } from "../../template-reading/read-paper";
import { readMarkSchemePdf } from "../../mark-scheme/read-scheme-pdf";
import type { ImagingReplies, ImagingRequest, ReplyEnvelope, RequestEnvelope } from "./protocol";

/**
 * The imaging worker process (forked by index.ts with an IPC channel): one request at a time, in the
 * order they come. Open piles stay here between requests (the app only holds an id), so reading a
 * 240-page pile interleaves with other requests instead of holding the worker for a minute.
 */

if (!process.send) throw new Error("the imaging worker runs as a child process with an IPC channel");
const send = (reply: ReplyEnvelope) => process.send!(reply);
const piles = new Map<number, OpenPile>();
let nextPileId = 1;
let queue = Promise.resolve();

process.on("message", (envelope: RequestEnvelope) => {
  queue = queue.then(() => handle(envelope)).catch(() => undefined);
});

async function handle({ id, request }: RequestEnvelope) {
  try {
    const value = await run(request);
    send({ id, ok: true, value });
  } catch (error) {
    const reply: ReplyEnvelope =
      error instanceof AppError
        ? { id, ok: false, error: { code: error.code, message: error.message, param: error.param } }
        : { id, ok: false, error: { code: null, message: error instanceof Error ? error.message : String(error) } };
    send(reply);
  }
}

async function run(request: ImagingRequest): Promise<ImagingReplies[ImagingRequest["kind"]]> {
  switch (request.kind) {
    case "openPile": {
      const pile = await openPile(new Uint8Array(await readFile(request.path)), { maxPages: request.maxPages, areas: request.areas });
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
      return stampScripts(request.paper, request.batchCode, request.scripts, request.keepClear, request.options);
    case "nameBoxCrop":
      return nameBoxCrop(request.onePagePdf, request.rotation, request.rect, request.cover);
    case "inspectPaper":
      return inspectPaper(request.paper);
    case "redactScript":
      return redactScript(request.scriptPdf, request.covers);
    case "redactedPageImage":
      return redactedPageImage(request.onePagePdf, request.rotation, request.covers);
    case "signInSlips":
      return renderSignInSlips(request.sheet);
    case "findTickBoxes":
      return findTickBoxes(request.paper, request.page, request.area);
    case "readAreas": {
      const { kind: _kind, ...input } = request;
      return readAreas(input);
    }
    case "proposeTemplate":
      return proposeTemplate(request.paper);
    case "readMarkScheme":
      return readMarkSchemePdf(request.pdf);
    case "answerCrop":
      return answerCrop(request.onePagePdf, request.rotation, request.rect, request.covers);
  }
}
