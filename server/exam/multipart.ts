import { AppError } from "../errors";
import { textProblem } from "../http/input-rules";
import { partHeaderEnd } from "../http/multipart-part-headers";

/**
 * A small streaming multipart/form-data reader (RFC 7578) over a Web ReadableStream. Parts are read in
 * order; a file part's body is an async iterable of chunks, so a large upload passes through without
 * being held in memory. Only what the scan upload needs: names, filenames, content types.
 */

export interface MultipartPart {
  name: string;
  filename: string | null;
  contentType: string | null;
  /** The part's bytes. Must be consumed (or abandoned) before the next part is read. */
  body: AsyncIterable<Uint8Array>;
}

const CRLF = Buffer.from("\r\n");
const HEADER_END_LENGTH = 4; // CRLFCRLF
/** What may come before the first delimiter (clients send none). */
const MAX_PREAMBLE_BYTES = 16 * 1024;

/** The boundary of a multipart/form-data content type, or null when it is not one. */
export function multipartBoundary(contentType: string | null): string | null {
  if (!contentType || !/^multipart\/form-data\s*(;|$)/i.test(contentType)) return null;
  const match = /;\s*boundary=(?:"([^"]{1,70})"|([^\s;]{1,70}))/i.exec(contentType);
  return match?.[1] ?? match?.[2] ?? null;
}

export class MultipartReader {
  private buffer = Buffer.alloc(0);
  private ended = false;
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private readonly delimiter: Buffer;
  /** Set once the closing delimiter has been read. */
  private finished = false;
  private bytesRead = 0;

  constructor(stream: ReadableStream<Uint8Array>, boundary: string, private readonly maxTotalBytes: number) {
    this.reader = stream.getReader();
    this.delimiter = Buffer.from(`\r\n--${boundary}`);
  }

  /** Stops reading and tells the sender's stream to stop (used when an upload is refused early). */
  async cancel(reason?: string): Promise<void> {
    this.ended = true;
    await this.reader.cancel(reason).catch(() => {});
  }

  private async fill(): Promise<boolean> {
    if (this.ended) return false;
    const { done, value } = await this.reader.read();
    if (done) {
      this.ended = true;
      return false;
    }
    this.bytesRead += value.byteLength;
    if (this.bytesRead > this.maxTotalBytes) {
      await this.cancel("too large");
      throw new AppError("too_large", "The upload is larger than the maximum scan size");
    }
    this.buffer = this.buffer.length === 0 ? Buffer.from(value) : Buffer.concat([this.buffer, value]);
    return true;
  }

  private malformed(): never {
    throw new AppError("invalid", "The multipart body is malformed");
  }

  async *parts(): AsyncGenerator<MultipartPart> {
    // The first delimiter has no leading CRLF; prefixing one lets a single search handle both cases.
    this.buffer = Buffer.concat([CRLF, this.buffer]);
    while (this.buffer.indexOf(this.delimiter) < 0) {
      if (this.buffer.length > MAX_PREAMBLE_BYTES) this.malformed();
      if (!(await this.fill())) this.malformed();
    }
    this.buffer = this.buffer.subarray(this.buffer.indexOf(this.delimiter) + this.delimiter.length);
    while (!this.finished) {
      while (this.buffer.length < 2) if (!(await this.fill())) this.malformed();
      if (this.buffer[0] === 0x2d && this.buffer[1] === 0x2d) return; // "--": the closing delimiter
      let headerEnd: number;
      // The header block starts after the CRLF that ends the delimiter line.
      while ((headerEnd = partHeaderEnd(this.buffer, 2)) < 0) {
        if (!(await this.fill())) this.malformed();
      }
      const headers = parseHeaders(this.buffer.subarray(2, headerEnd).toString("utf8"));
      this.buffer = this.buffer.subarray(headerEnd + HEADER_END_LENGTH);
      const disposition = headers.get("content-disposition") ?? "";
      const name = /;\s*name="([^"]*)"/i.exec(disposition)?.[1];
      if (name === undefined) this.malformed();
      const filename = /;\s*filename="([^"]*)"/i.exec(disposition)?.[1] ?? null;
      // The file name is stored (files.original_name): the same text rule as every other field.
      const filenameProblem = filename === null ? null : textProblem(filename);
      if (filenameProblem) throw new AppError("invalid", `${name.slice(0, 100)}: the file name ${filenameProblem}`, name.slice(0, 100));
      let consumed = false;
      const body = this.partBody(() => (consumed = true));
      yield { name, filename, contentType: headers.get("content-type") ?? null, body };
      if (!consumed) for await (const _ of this.partBody(() => {})) void _; // skip what the caller left
    }
  }

  private async *partBody(onEnd: () => void): AsyncGenerator<Uint8Array> {
    const keep = this.delimiter.length + 2; // delimiter plus the CRLF or "--" after it
    for (;;) {
      const at = this.buffer.indexOf(this.delimiter);
      if (at >= 0) {
        if (at > 0) yield this.buffer.subarray(0, at);
        this.buffer = this.buffer.subarray(at + this.delimiter.length);
        while (this.buffer.length < 2) if (!(await this.fill())) this.malformed();
        if (this.buffer[0] === 0x2d && this.buffer[1] === 0x2d) this.finished = true;
        onEnd();
        return;
      }
      if (this.buffer.length > keep) {
        const ready = this.buffer.subarray(0, this.buffer.length - keep);
        this.buffer = this.buffer.subarray(this.buffer.length - keep);
        yield ready;
      }
      if (!(await this.fill())) this.malformed();
    }
  }
}

function parseHeaders(text: string): Map<string, string> {
  const headers = new Map<string, string>();
  for (const line of text.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return headers;
}
