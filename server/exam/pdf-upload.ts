import crypto from "node:crypto";
import type { Tx } from "../db/client";
import { files } from "../db/schema";
import { AppError } from "../errors";
import { textProblem } from "../../lib/rules/input-rules";
import { type MultipartFile, type MultipartRules, readMultipartForm } from "../http/multipart";
import { formatByteSize } from "../../lib/rules/byte-size";
import { logger } from "../logger";
import type { ObjectStorage } from "../storage/object-storage";

/** Content types a PDF upload (a scan or a template paper) may declare. */
const acceptedPdfTypes = ["application/pdf", "application/x-pdf"];
const PDF_SIGNATURE = Buffer.from("%PDF-");

/**
 * Room for the multipart framing and the small form fields around the PDF (the reader's
 * `formOverheadBytes`; a scan's fields are 1 KB at most). A parallel of the speech form's
 * SPEECH_FORM_OVERHEAD_BYTES (server/speech/audio-upload.ts), whose fields are larger.
 */
const PDF_FORM_OVERHEAD_BYTES = 64 * 1024;
/** Bytes of one text field of a PDF upload's form (student_id, matching_method). */
const MAX_FIELD_BYTES = 1024;

/** A PDF upload as its route hands it over: the request's content type, declared length and body. */
export interface PdfUpload {
  contentType: string | null;
  contentLength: number | null;
  body: ReadableStream<Uint8Array> | null;
}

/** What a PDF upload is, as the messages name it. */
export type PdfKind = "scan" | "paper" | "scanned pile";

const pdfTooLarge = (what: PdfKind, maxBytes: number) =>
  new AppError("too_large", `The ${what} is too large: the largest accepted is ${formatByteSize(maxBytes)}`);

/**
 * Reads a PDF upload (a scan or a template paper) with the shared multipart reader
 * (server/http/multipart.ts): multipart/form-data with a body (else 415); the whole body within the
 * maximum and the form around it, declared (413 at once) or read (413, the sender's stream cancelled);
 * the PDF in the `file` part, whose name is stored and so must be storable text (400), handed to
 * `storePdf` while it streams in.
 */
export function readPdfUpload<T>(upload: PdfUpload, maxBytes: number, what: PdfKind, storePdf: (part: MultipartFile) => Promise<T>) {
  const rules: MultipartRules = {
    fileField: "file",
    maxFileBytes: maxBytes,
    formOverheadBytes: PDF_FORM_OVERHEAD_BYTES,
    maxFieldBytes: MAX_FIELD_BYTES,
    notMultipart: () => new AppError("unsupported_media", `Send the ${what} as a file upload (multipart/form-data with a field named file)`),
    tooLarge: () => pdfTooLarge(what, maxBytes),
  };
  return readMultipartForm(upload, rules, async (part) => {
    const filenameProblem = textProblem(part.filename);
    if (filenameProblem) throw new AppError("invalid", `File name: ${filenameProblem}. Rename the file and upload it again`, rules.fileField);
    return storePdf(part);
  });
}

/**
 * Streams the PDF part of an upload into storage, checking in this order: the declared type (415), the
 * `%PDF-` signature on the first bytes before anything is stored (415); the reader holds the part to
 * the maximum size (413). Nothing is held in memory unless `keepBytes` asks for it (a
 * template paper, whose pages are counted). A storage failure is a 502.
 */
export async function streamPdfToStorage(
  part: MultipartFile,
  options: { storage: ObjectStorage; bucket: string; key: string; what: PdfKind; keepBytes?: boolean },
): Promise<{ byteSize: number; sha256: string; bytes: Buffer | null }> {
  const { storage, bucket, key, what } = options;
  const declared = (part.contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (!acceptedPdfTypes.includes(declared)) {
    throw new AppError("unsupported_media", `The ${what} must be a PDF file`);
  }
  const chunks = part.body[Symbol.asyncIterator]();
  const hash = crypto.createHash("sha256");
  const kept: Buffer[] = [];
  let size = 0;
  const take = (chunk: Uint8Array) => {
    size += chunk.byteLength;
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
    throw new AppError("unsupported_media", `The ${what} is not a PDF file: it may be damaged, or another kind of file renamed .pdf`);
  }
  async function* bytes(): AsyncGenerator<Uint8Array> {
    yield* head;
    for (let next = await chunks.next(); !next.done; next = await chunks.next()) yield take(next.value);
  }
  try {
    await storage.put(bucket, key, bytes(), { contentType: "application/pdf" });
  } catch (error) {
    if (error instanceof AppError) throw error;
    logger.error(`${what} storage failed`, error);
    throw new AppError("upstream", `The ${what} could not be stored; try again`);
  }
  return { byteSize: size, sha256: hash.digest("hex"), bytes: options.keepBytes ? Buffer.concat(kept) : null };
}

/** A PDF in storage, as its upload left it: where it is, its size, its hash and the name it was sent with. */
export interface StoredPdfFile {
  bucket: string;
  key: string;
  byteSize: number;
  sha256: string;
  originalName: string | null;
}

/**
 * The `files` row of a PDF just streamed into storage (a scan, a scanned pile, a template's paper), in
 * the caller's transaction: owned by the caller, in the institute given; a paper also keeps its page count.
 */
export async function recordStoredPdf(tx: Tx, owner: { instituteId: string; ownerId: string }, pdf: StoredPdfFile, pageCount?: number) {
  const [row] = await tx
    .insert(files)
    .values({
      institute_id: owner.instituteId,
      owner_id: owner.ownerId,
      bucket: pdf.bucket,
      storage_key: pdf.key,
      content_type: "application/pdf",
      byte_size: pdf.byteSize,
      sha256: pdf.sha256,
      original_name: pdf.originalName?.slice(0, 255) ?? null,
      ...(pageCount === undefined ? {} : { page_count: pageCount }),
    })
    .returning();
  return row!;
}
