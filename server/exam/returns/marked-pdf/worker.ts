import { AppError } from "../../../errors";
import type { MarkedPdfReplyEnvelope, MarkedPdfRequest, MarkedPdfRequestEnvelope } from "./protocol";
import { MarkedScriptsPdf, renderClassFeedback, renderMarkedScript } from "./render";

/**
 * The marked-PDF worker process (forked by index.ts with an IPC channel): one request at a time, in
 * the order they come. Its heap is bounded by the app (--max-old-space-size), and its time per
 * request too (the app ends the process when a request takes too long).
 */

if (!process.send) throw new Error("the marked-PDF worker runs as a child process with an IPC channel");
const send = (reply: MarkedPdfReplyEnvelope) => process.send!(reply);
let queue = Promise.resolve();
/** Class PDFs being built (index.ts's markedScriptsPdf), by id: gone if this process ends. */
const classes = new Map<number, MarkedScriptsPdf>();
let nextClassId = 1;

process.on("message", (envelope: MarkedPdfRequestEnvelope) => {
  queue = queue.then(() => handle(envelope)).catch(() => undefined);
});

async function handle({ id, request }: MarkedPdfRequestEnvelope) {
  try {
    send({ id, ok: true, value: await run(request) });
  } catch (error) {
    send(
      error instanceof AppError
        ? { id, ok: false, error: { code: error.code, message: error.message, param: error.param } }
        : { id, ok: false, error: { code: null, message: error instanceof Error ? error.message : String(error) } },
    );
  }
}

async function run(request: MarkedPdfRequest): Promise<Uint8Array | number | null> {
  switch (request.kind) {
    case "script":
      return renderMarkedScript(request.document);
    case "classFeedback":
      return renderClassFeedback(request.sheets, request.title);
    case "classOpen": {
      const classId = nextClassId++;
      classes.set(classId, await MarkedScriptsPdf.create(request.title));
      return classId;
    }
    case "classAdd":
      await openClass(request.classId).add(request.document);
      return null;
    case "classSave": {
      const pdf = await openClass(request.classId).save();
      classes.delete(request.classId);
      return pdf;
    }
    case "classClose":
      classes.delete(request.classId);
      return null;
  }
}

function openClass(classId: number): MarkedScriptsPdf {
  const open = classes.get(classId);
  if (!open) throw new Error("the class PDF is no longer open in the marked-PDF worker");
  return open;
}
