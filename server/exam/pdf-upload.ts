import crypto from "node:crypto";
import { AppError } from "../errors";
import { logger } from "../logger";
import type { ObjectStorage } from "../storage/object-storage";
import { MultipartReader, multipartBoundary } from "./multipart";

/** Content types a PDF upload (a scan or a template paper) may declare. */
export const acceptedPdfTypes = ["application/pdf", "application/x-pdf"];
const PDF_SIGNATURE = Buffer.from("%PDF-");

/**
 * Room for the multipart framing and the small form fields around the PDF (a scan's fields are 1 KB at
 * most). The upload's whole body is bounded by the PDF's maximum plus this.
 */
const PDF_FORM_OVERHEAD_BYTES = 64 * 1024;

/** A PDF upload as its route hands it over: the request's content type, declared length and body. */
export interface PdfUpload {
  contentType: string | null;
  contentLength: number | null;
  body: ReadableStream<Uint8Array> | null;
}

export interface UploadedPart {
  contentType: string | null;
  filename: string | null;
  body: AsyncIterable<Uint8Array>;
}

export const pdfTooLarge = (what: string, maxBytes: number) =>
  new AppError("too_large", `The ${what} is larger than the maximum of ${maxBytes} bytes`);

/**
 * Opens a PDF upload (a scan or a template paper): multipart/form-data with a body (else 415), and a
 * declared length within the maximum and the form around it (else 413 at once, the sender's stream
 * cancelled). The reader holds what actually arrives to the same bound.
 */
export async function openPdfUpload(upload: PdfUpload, maxBytes: number, what: "scan" | "PDF"): Promise<MultipartReader> {
  const boundary = multipartBoundary(upload.contentType);
  if (!boundary || !upload.body) throw new AppError("unsupported_media", `Send the ${what} as multipart/form-data with a file field`);
  if (upload.contentLength !== null && upload.contentLength > maxBytes + PDF_FORM_OVERHEAD_BYTES) {
    await upload.body.cancel("too large").catch(() => {});
    throw pdfTooLarge(what, maxBytes);
  }
  return new MultipartReader(upload.body, boundary, maxBytes + PDF_FORM_OVERHEAD_BYTES);
}

/**
 * Streams one PDF part of a multipart upload into storage, checking in this order: the declared type
 * (415), the size while reading (413, the sender's stream cancelled), the `%PDF-` signature on the first
 * bytes before anything is stored (415). Nothing is held in memory unless `keepBytes` asks for it (a
 * template paper, whose pages are counted). A storage failure is a 502.
 */
export async function streamPdfToStorage(
  reader: MultipartReader,
  part: UploadedPart,
  options: { storage: ObjectStorage; bucket: string; key: string; maxBytes: number; what: "scan" | "PDF"; keepBytes?: boolean },
): Promise<{ byteSize: number; sha256: string; bytes: Buffer | null }> {
  const { storage, bucket, key, maxBytes, what } = options;
  const declared = (part.contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (!acceptedPdfTypes.includes(declared)) {
    throw new AppError("unsupported_media", `The ${what} must be a PDF (application/pdf), not ${declared || "an undeclared type"}`);
  }
  const chunks = part.body[Symbol.asyncIterator]();
  const hash = crypto.createHash("sha256");
  const kept: Buffer[] = [];
  let size = 0;
  const take = (chunk: Uint8Array) => {
    size += chunk.byteLength;
    if (size > maxBytes) throw pdfTooLarge(what, maxBytes);
    hash.update(chunk);
    if (options.keepBytes) kept.push(Buffer.from(chunk));
    return chunk;
  };
  const head: Uint8Array[] = [];
  while (size < PDF_SIGNATURE.length) {
    const next = await chunks.next();
    if (next.done) break;
    head.push(take(next.value));
  }
  if (!Buffer.concat(head).subarray(0, PDF_SIGNATURE.length).equals(PDF_SIGNATURE)) {
    throw new AppError("unsupported_media", `The ${what} is not a PDF: it does not begin with %PDF-`);
  }
  async function* bytes(): AsyncGenerator<Uint8Array> {
    yield* head;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield take(next.value);
  }
  try {
    await storage.put(bucket, key, bytes(), { contentType: "application/pdf" });
  } catch (error) {
    if (error instanceof AppError) {
      if (error.code === "too_large") await reader.cancel("too large");
      throw error;
    }
    logger.error(`${what} storage failed`, error);
    throw new AppError("upstream", `The ${what} could not be stored; try again`);
  }
  return { byteSize: size, sha256: hash.digest("hex"), bytes: options.keepBytes ? Buffer.concat(kept) : null };
}
