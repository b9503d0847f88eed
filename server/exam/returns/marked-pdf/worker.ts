import { AppError } from "../../../errors";
import type { MarkedPdfReplyEnvelope, MarkedPdfRequest, MarkedPdfRequestEnvelope } from "./protocol";
import { renderClassFeedback, renderMarkedScript } from "./render";

/**
 * The marked-PDF worker process (forked by index.ts with an IPC channel): one request at a time, in
 * the order they come. Its heap is bounded by the app (--max-old-space-size), and its time per
 * request too (the app ends the process when a request takes too long).
 */

if (!process.send) throw new Error("the marked-PDF worker runs as a child process with an IPC channel");
const send = (reply: MarkedPdfReplyEnvelope) => process.send!(reply);
let queue = Promise.resolve();

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

function run(request: MarkedPdfRequest): Promise<Uint8Array> {
  switch (request.kind) {
    case "script":
      return renderMarkedScript(request.document);
    case "classFeedback":
      return renderClassFeedback(request.sheets, request.title);
  }
}
