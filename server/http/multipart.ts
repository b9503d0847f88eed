import { AppError } from "../errors";
import { partHeaderEnd } from "./multipart-part-headers";

/**
 * The one multipart/form-data reader (RFC 7578) of every upload: scans and template PDFs
 * (server/exam/pdf-upload.ts) and speech audio (server/speech/audio-upload.ts). It streams: a file part's
 * bytes go to the caller as they arrive, never held whole, and reading stops (the sender's stream is
 * cancelled) at the first byte past a limit. Hand-written rather than @fastify/busboy, which cuts an
 * over-long part header block short without telling (docs/decisions.md, "One multipart reader").
 */

/** Parts (fields and the file) one form may have. */
export const MAX_FORM_PARTS = 64;
/** Bytes between a delimiter and the end of its line (RFC 2046 allows spaces there). */
const MAX_DELIMITER_PADDING = 256;

/** What a caller's upload rules say. */
export interface MultipartRules {
  /** The file part is the one of this name that has a filename; a second one is refused. */
  fileField: string;
  maxFileBytes: number;
  /**
   * Room for the fields and part headers besides the file. The whole body may be `maxFileBytes` plus
   * this: a declared Content-Length over it is refused before reading, and so is the byte past it.
   */
  formOverheadBytes: number;
  /** Bytes one text field may have. */
  maxFieldBytes: number;
  /** The refusal of a request that is not multipart/form-data with a body (the status is the caller's). */
  notMultipart: () => AppError;
  /** The 413 of a file or body over its limit. */
  tooLarge: () => AppError;
}

/** An upload as its edge hands it over. */
export interface MultipartRequest {
  contentType: string | null | undefined;
  contentLength: number | null;
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | null;
}

/** The file part, handed to the caller while it streams in. */
export interface MultipartFile {
  filename: string;
  contentType: string | null;
  /** The file's bytes; whatever the caller leaves unread is skipped. */
  body: AsyncIterable<Uint8Array>;
}

export interface MultipartForm<T> {
  /** Text fields by name, every value of a repeated name in order (timestamp_granularities[]). */
  fields: Map<string, string[]>;
  /** What `receiveFile` made of the file part, or null when there was none. */
  file: T | null;
}

/** The boundary of a multipart/form-data content type (1 to 70 characters, RFC 2046), or null when it is not one. */
export function multipartBoundary(contentType: string | null | undefined): string | null {
  if (!contentType || !/^multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
  const match = /;\s*boundary=(?:"([^"]+)"|([^\s;]+))/i.exec(contentType);
  const boundary = match?.[1] ?? match?.[2];
  return boundary && boundary.length <= 70 ? boundary : null;
}

/** The bound of an upload's whole body: its file's maximum and the room for the form around it. */
const multipartBodyLimit = (rules: Pick<MultipartRules, "maxFileBytes" | "formOverheadBytes">) =>
  rules.maxFileBytes + rules.formOverheadBytes;

/**
 * Reads a multipart/form-data upload: text fields into memory (each at most `maxFieldBytes`, at most
 * MAX_FORM_PARTS parts), the file part to `receiveFile` as a stream (at most `maxFileBytes`). Refuses,
 * in this order: not multipart (`notMultipart`), a declared length over the body limit (413, nothing
 * read), then while reading the first byte over any limit (413 for the file or the body, 400 for a
 * field, the part count or part headers over MAX_PART_HEADER_BYTES), a second file (400) and a body
 * that is malformed or ends before its closing delimiter (400). Reading stops at the closing delimiter
 * or the first error, and the body's stream is then released (a Web stream is cancelled).
 */
export async function readMultipartForm<T>(
  request: MultipartRequest,
  rules: MultipartRules,
  receiveFile: (file: MultipartFile) => Promise<T>,
): Promise<MultipartForm<T>> {
  const boundary = multipartBoundary(request.contentType);
  if (!boundary || !request.body) throw rules.notMultipart();
  const source = byteSource(request.body);
  const bodyLimit = multipartBodyLimit(rules);
  try {
    if (request.contentLength !== null && request.contentLength > bodyLimit) throw rules.tooLarge();
    const reader = new PartReader(source, boundary, bodyLimit, rules.tooLarge);
    const fields = new Map<string, string[]>();
    let file: { value: T } | null = null;
    let parts = 0;
    for await (const part of reader.parts()) {
      if (++parts > MAX_FORM_PARTS) throw new AppError("invalid", `Too many form fields (at most ${MAX_FORM_PARTS}).`);
      if (part.name === rules.fileField && part.filename !== null) {
        if (file) throw new AppError("invalid", `Only one file may be uploaded, in the '${rules.fileField}' field.`, rules.fileField);
        const body = bounded(part.body, rules.maxFileBytes, rules.tooLarge);
        file = { value: await receiveFile({ filename: part.filename, contentType: part.contentType, body }) };
      } else {
        const values = fields.get(part.name) ?? [];
        values.push(await readField(part.name, part.body, rules.maxFieldBytes));
        fields.set(part.name, values);
      }
    }
    return { fields, file: file ? file.value : null };
  } finally {
    await source.release();
  }
}

async function* bounded(body: AsyncIterable<Buffer>, maxBytes: number, tooLarge: () => AppError): AsyncGenerator<Buffer> {
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge();
    yield chunk;
  }
}

async function readField(name: string, body: AsyncIterable<Buffer>, maxBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.byteLength;
    if (size > maxBytes) throw new AppError("invalid", `The field '${name}' is too long.`, name);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

interface ByteSource {
  /** The next chunk, or null at the end of the body. */
  read(): Promise<Uint8Array | null>;
  /** Stops reading: cancels a Web stream, ends an iterator (the http server drains what is left). */
  release(): Promise<void>;
}

function byteSource(body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>): ByteSource {
  if ("getReader" in body) {
    const reader = body.getReader();
    return {
      read: async () => {
        const { done, value } = await reader.read();
        return done ? null : value;
      },
      release: () => reader.cancel().catch(() => {}),
    };
  }
  const iterator = body[Symbol.asyncIterator]();
  return {
    read: async () => {
      const next = await iterator.next();
      return next.done ? null : next.value;
    },
    release: async () => {
      await iterator.return?.()?.catch(() => {});
    },
  };
}

interface Part {
  name: string;
  filename: string | null;
  contentType: string | null;
  /** Must be read or abandoned before the next part is asked for; what is left is skipped. */
  body: AsyncIterable<Buffer>;
}

const malformed = (why: string) => new AppError("invalid", `The multipart body is malformed: ${why}.`);

/** The parts of one body in order, each part's bytes streamed between its delimiters. */
class PartReader {
  /** What has arrived and is not yet handed over; always starts where parsing stands. */
  private buffer: Buffer = Buffer.alloc(0);
  private bytesRead = 0;
  private readonly delimiter: Buffer;
  /** The current part's body has not reached its delimiter yet. */
  private inPart = false;

  constructor(
    private readonly source: ByteSource,
    boundary: string,
    private readonly maxBodyBytes: number,
    private readonly tooLarge: () => AppError,
  ) {
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  private async fill(): Promise<void> {
    const chunk = await this.source.read();
    if (chunk === null) throw new AppError("invalid", "The multipart body ended before its closing boundary.");
    this.bytesRead += chunk.byteLength;
    if (this.bytesRead > this.maxBodyBytes) throw this.tooLarge();
    const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    this.buffer = this.buffer.length === 0 ? bytes : Buffer.concat([this.buffer, bytes]);
  }

  async *parts(): AsyncGenerator<Part> {
    // A CRLF before the body makes the first delimiter look like every other one; the preamble before
    // it is skipped as a part's body would be.
    this.buffer = Buffer.from("\r\n");
    this.inPart = true;
    await this.skipRestOfPart();
    for (;;) {
      if (await this.atClosingDelimiter()) return;
      let headerEnd: number;
      // The header block starts after the CRLF that ends the delimiter line.
      while ((headerEnd = partHeaderEnd(this.buffer, 2)) < 0) await this.fill();
      const headers = parsePartHeaders(this.buffer.subarray(2, headerEnd).toString("utf8"));
      this.buffer = this.buffer.subarray(headerEnd + 4);
      if (headers.name === null) throw malformed("a part has no name");
      this.inPart = true;
      yield { name: headers.name, filename: headers.filename, contentType: headers.contentType, body: this.partBody() };
      await this.skipRestOfPart();
    }
  }

  private async skipRestOfPart() {
    if (this.inPart) for await (const _ of this.partBody()) void _;
  }

  /**
   * After a delimiter: `--` closes the body; otherwise optional spaces and the CRLF that ends the
   * delimiter line, which stays in the buffer.
   */
  private async atClosingDelimiter(): Promise<boolean> {
    for (;;) {
      if (this.buffer.length >= 2 && this.buffer[0] === 0x2d && this.buffer[1] === 0x2d) return true;
      let padding = 0;
      while (padding < this.buffer.length && (this.buffer[padding] === 0x20 || this.buffer[padding] === 0x09)) padding++;
      if (padding > MAX_DELIMITER_PADDING) throw malformed("a delimiter line is too long");
      if (this.buffer.length >= padding + 2) {
        if (this.buffer[padding] !== 0x0d || this.buffer[padding + 1] !== 0x0a) throw malformed("a delimiter is followed by other text");
        this.buffer = this.buffer.subarray(padding);
        return false;
      }
      await this.fill();
    }
  }

  /** The current part's bytes up to the next delimiter, keeping back a tail that may be a delimiter's start. */
  private async *partBody(): AsyncGenerator<Buffer> {
    const keep = this.delimiter.length - 1;
    while (this.inPart) {
      const at = this.buffer.indexOf(this.delimiter);
      if (at >= 0) {
        const last = this.buffer.subarray(0, at);
        this.buffer = this.buffer.subarray(at + this.delimiter.length);
        this.inPart = false;
        if (last.length > 0) yield last;
        return;
      }
      if (this.buffer.length > keep) {
        const ready = this.buffer.subarray(0, this.buffer.length - keep);
        this.buffer = this.buffer.subarray(this.buffer.length - keep);
        yield ready;
      }
      await this.fill();
    }
  }
}

/** A part's name, filename (quoted with backslash escapes, or a bare token) and Content-Type. */
function parsePartHeaders(block: string) {
  const headers = new Map<string, string>();
  for (const line of block.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const disposition = headers.get("content-disposition") ?? "";
  const param = (name: string) => {
    const match = new RegExp(`;\\s*${name}="((?:[^"\\\\]|\\\\.)*)"|;\\s*${name}=([^;\\s]+)`, "i").exec(disposition);
    const value = match?.[1] ?? match?.[2];
    return value === undefined ? null : value.replace(/\\(.)/g, "$1");
  };
  return { name: param("name"), filename: param("filename"), contentType: headers.get("content-type") ?? null };
}
