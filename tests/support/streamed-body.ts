import { multipartBody } from "./exam-fixtures";

const PIECE_BYTES = 64 * 1024;

/**
 * A request body sent as a stream with no declared length: `head`, then `total` bytes of blanks in
 * 64 KiB pieces made only as the reader pulls them, then `tail`. `sent()` counts the blanks pulled so
 * far, `cancelled()` tells whether the reader cancelled the stream (an upload refused while streaming).
 */
export function streamedBody(head: Uint8Array, total: number, tail: Uint8Array = new Uint8Array()) {
  let sent = 0;
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(head);
    },
    pull(controller) {
      if (sent >= total) {
        controller.enqueue(tail);
        controller.close();
        return;
      }
      controller.enqueue(new Uint8Array(PIECE_BYTES).fill(0x20));
      sent += PIECE_BYTES;
    },
    cancel() {
      cancelled = true;
    },
  });
  return { body, sent: () => sent, cancelled: () => cancelled };
}

/** Head and tail of a multipart body whose `file` part is a PDF (its signature) of blanks in between. */
export function pdfFormAroundBlanks() {
  const form = multipartBody([{ name: "file", filename: "big.pdf", bytes: Buffer.from("%PDF-1.7\n") }]);
  const split = form.body.indexOf("%PDF-1.7\n") + "%PDF-1.7\n".length;
  return { head: form.body.subarray(0, split), tail: form.body.subarray(split), contentType: form.contentType };
}
