/**
 * The one multipart reader (server/http/multipart.ts) through its public function: every split of the
 * body, bytes that look like a delimiter inside a file, and hostile bodies (cut off, a field or a file
 * over its limit, a part header flood, too many parts, a second file).
 */
import { describe, expect, it } from "vitest";
import { AppError } from "../server/errors";
import { MAX_FORM_PARTS, type MultipartRules, readMultipartForm } from "../server/http/multipart";
import { MAX_PART_HEADER_BYTES } from "../server/http/multipart-part-headers";
import { multipartBody } from "./support/exam-fixtures";

const rules: MultipartRules = {
  fileField: "file",
  maxFileBytes: 1024,
  formOverheadBytes: 64 * 1024,
  maxFieldBytes: 64,
  notMultipart: () => new AppError("unsupported_media", "not multipart"),
  tooLarge: () => new AppError("too_large", "too large", "file", "file_too_large"),
};

/** A body that records how many of its chunks were read and whether it was cancelled. */
function chunked(chunks: Uint8Array[]) {
  const seen = { read: 0, cancelled: false };
  let next = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next >= chunks.length) return controller.close();
      seen.read++;
      controller.enqueue(chunks[next++]);
    },
    cancel() {
      seen.cancelled = true;
    },
  });
  return { stream, seen };
}

const inPieces = (body: Buffer, size: number) => Array.from({ length: Math.ceil(body.length / size) }, (_, i) => body.subarray(i * size, (i + 1) * size));

/** Reads a form, collecting the file's bytes as text; fields as [name, value] pairs in order. */
function read(form: { body: Buffer; contentType: string }, chunks: Uint8Array[] = [form.body], overrides: Partial<MultipartRules> = {}) {
  const { stream, seen } = chunked(chunks);
  const result = readMultipartForm({ contentType: form.contentType, contentLength: null, body: stream }, { ...rules, ...overrides }, async (file) => {
    const parts: Buffer[] = [];
    for await (const chunk of file.body) parts.push(Buffer.from(chunk));
    return { filename: file.filename, contentType: file.contentType, text: Buffer.concat(parts).toString("latin1") };
  });
  return { result, seen };
}

const refusal = (promise: Promise<unknown>) =>
  promise.then(
    () => null,
    (error: AppError) => ({ status: error.status, message: error.message, param: error.param }),
  );

describe("the multipart reader", () => {
  const fileBytes = "%PDF-\r\n--not-a-boundary\r\n\r\n\r\n--\r\n-\rend\r";
  const boundary = "----markbook-split";
  const form = multipartBody(
    [
      { name: "student_id", value: "abc" },
      { name: "file", filename: "x.pdf", bytes: Buffer.from(fileBytes, "latin1") },
      { name: "note", value: "a\r\nb" },
    ],
    boundary,
  );
  const expected = {
    fields: new Map([
      ["student_id", ["abc"]],
      ["note", ["a\r\nb"]],
    ]),
    file: { filename: "x.pdf", contentType: "application/pdf", text: fileBytes },
  };

  it("reads fields and a file split across tiny chunks, in order", async () => {
    for (const size of [1, 3, 7]) expect(await read(form, inPieces(form.body, size)).result).toEqual(expected);
  });

  it("reads the same form whatever byte a chunk boundary falls on, inside every delimiter included", async () => {
    for (let split = 0; split <= form.body.length; split++) {
      const { result } = read(form, [form.body.subarray(0, split), form.body.subarray(split)]);
      expect(await result, `split at ${split}`).toEqual(expected);
    }
  });

  it("keeps CRLF and a near-delimiter inside a file's bytes, at the file's start and end too", async () => {
    const tricky = `\r\n--${boundary.slice(0, -1)}\r\n\r\n--${boundary}x`;
    const withCrlf = multipartBody([{ name: "file", filename: "a.bin", bytes: Buffer.from(`\r\n${tricky}\r\n`, "latin1") }], `${boundary}`);
    // "--boundaryx" is not followed by the end of a delimiter line: refused rather than guessed at.
    expect(await refusal(read(withCrlf).result)).toMatchObject({ status: 400, message: expect.stringMatching(/malformed/) });
    const clean = multipartBody([{ name: "file", filename: "a.bin", bytes: Buffer.from(`\r\n--${boundary.slice(0, -1)}\r\n\r\n`, "latin1") }], boundary);
    expect((await read(clean, inPieces(clean.body, 2)).result).file?.text).toBe(`\r\n--${boundary.slice(0, -1)}\r\n\r\n`);
  });

  it("refuses a body without its closing delimiter with 400", async () => {
    const cut = form.body.subarray(0, form.body.lastIndexOf(`--${boundary}--`));
    expect(await refusal(read(form, [cut]).result)).toEqual({ status: 400, message: "The multipart body ended before its closing boundary.", param: undefined });
    expect(await refusal(read(form, [form.body.subarray(0, 30)]).result)).toMatchObject({ status: 400 });
  });

  it("refuses a field over its limit with 400 naming it, without reading the rest", async () => {
    const long = multipartBody([{ name: "prompt", value: "x".repeat(10_000) }, { name: "file", filename: "a.pdf", bytes: Buffer.alloc(10) }]);
    const { result, seen } = read(long, inPieces(long.body, 16));
    expect(await refusal(result)).toEqual({ status: 400, message: "The field 'prompt' is too long.", param: "prompt" });
    expect(seen.read).toBeLessThan(20);
    expect(seen.cancelled).toBe(true);
  });

  it("refuses a part header flood with 400 at the limit, whether or not the block ever ends", async () => {
    const head = Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n`);
    const flood = Buffer.alloc(1024 * 1024, "X-Flood: 1\r\n");
    const { result, seen } = read({ body: Buffer.alloc(0), contentType: `multipart/form-data; boundary=${boundary}` }, [head, ...inPieces(flood, 4096)], {
      formOverheadBytes: 2 * 1024 * 1024,
    });
    const tooLong = `The headers of a multipart part are longer than the limit of ${MAX_PART_HEADER_BYTES} bytes`;
    expect(await refusal(result)).toEqual({ status: 400, message: tooLong, param: undefined });
    expect(seen.read).toBeLessThan(10);
    const oneChunk = multipartBody([{ name: "file", filename: `${"a".repeat(MAX_PART_HEADER_BYTES)}.pdf`, bytes: Buffer.alloc(4) }]);
    expect(await refusal(read(oneChunk).result)).toMatchObject({ message: tooLong });
  });

  it("refuses a file over its limit with 413 at the first byte past it, cancelling the sender's stream", async () => {
    const big = multipartBody([{ name: "file", filename: "a.pdf", bytes: Buffer.alloc(100_000) }]);
    const { result, seen } = read(big, inPieces(big.body, 256));
    expect(await refusal(result)).toEqual({ status: 413, message: "too large", param: "file" });
    expect(seen.read).toBeLessThanOrEqual(Math.ceil((rules.maxFileBytes + 200) / 256) + 1);
    expect(seen.cancelled).toBe(true);
  });

  it("refuses a declared length over the body limit with 413 before reading anything", async () => {
    const { stream, seen } = chunked([form.body]);
    const declared = readMultipartForm({ contentType: form.contentType, contentLength: rules.maxFileBytes + rules.formOverheadBytes + 1, body: stream }, rules, async () => null);
    expect(await refusal(declared)).toMatchObject({ status: 413 });
    expect(seen).toEqual({ read: 0, cancelled: true });
  });

  it("refuses a body over the limit even when made of fields, and too many parts, and a second file", async () => {
    const fields = multipartBody(Array.from({ length: 40 }, (_, i) => ({ name: `f${i}`, value: "y".repeat(60) })));
    expect(await refusal(read(fields, [fields.body], { formOverheadBytes: 1024 }).result)).toMatchObject({ status: 413 });
    const many = multipartBody(Array.from({ length: MAX_FORM_PARTS + 1 }, (_, i) => ({ name: `f${i}`, value: "1" })));
    expect(await refusal(read(many).result)).toMatchObject({ status: 400, message: expect.stringMatching(/Too many form fields/) });
    const two = multipartBody([
      { name: "file", filename: "a.pdf", bytes: Buffer.alloc(4) },
      { name: "file", filename: "b.pdf", bytes: Buffer.alloc(4) },
    ]);
    expect(await refusal(read(two).result)).toMatchObject({ status: 400, param: "file" });
  });

  it("answers the caller's refusal to a body that is not multipart/form-data", async () => {
    for (const contentType of ["application/json", "multipart/mixed; boundary=x", "multipart/form-data", `multipart/form-data; boundary=${"b".repeat(71)}`]) {
      expect(await refusal(read({ body: form.body, contentType }).result)).toMatchObject({ status: 415, message: "not multipart" });
    }
  });
});
