import { AppError } from "../errors";

/**
 * The header block of one multipart/form-data part (its Content-Disposition and Content-Type lines) may
 * take at most this many bytes (the multipart reader, server/http/multipart.ts, for every upload). Real
 * clients send a few hundred bytes; the bound keeps a part's headers from being held in memory unbounded.
 */
export const MAX_PART_HEADER_BYTES = 16 * 1024;

const HEADER_END = Buffer.from("\r\n\r\n");

const partHeadersTooLong = () =>
  new AppError("invalid", `The headers of a multipart part are longer than the limit of ${MAX_PART_HEADER_BYTES} bytes`);

/**
 * Where the header block that starts at `start` in `buffer` ends (the index of its blank line's CRLFCRLF),
 * or -1 while more bytes are needed. A block over MAX_PART_HEADER_BYTES is refused (400) whether it
 * arrived in pieces or in one chunk together with its end.
 */
export function partHeaderEnd(buffer: Buffer, start = 0): number {
  const end = buffer.indexOf(HEADER_END);
  // Without its end yet, the last three bytes may be the start of the CRLFCRLF rather than headers.
  const headerBytes = end >= 0 ? end - start : buffer.length - start - (HEADER_END.length - 1);
  if (headerBytes > MAX_PART_HEADER_BYTES) throw partHeadersTooLong();
  return end;
}
