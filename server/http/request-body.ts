import { AppError } from "../errors";
import { formatByteSize } from "../../lib/rules/byte-size";

/**
 * The one reader of request bodies for classroom and exam REST routes: bounded in bytes, UTF-8, and for
 * JSON one parse with the structural rules below, so every JSON route refuses the same things the same
 * way (400 with a `{detail}` that says what to fix).
 */

/** A canvas of 2,000 questions and 10,000 areas is a few MB; anything much larger is not a request. */
export const MAX_JSON_BODY_BYTES = 16 * 1024 * 1024;
/** Deeper than any body a route takes (a mark scheme detail is a few levels): refused before the schemas recurse. */
const MAX_JSON_NESTING = 64;
/**
 * Keys refused anywhere in a JSON body: harmless to JSON.parse, but a later merge or spread into a
 * plain object could reach a prototype through them, and no field of the API is named so.
 */
const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);

/** The 413 of a body over `maxBytes`, the same sentence on REST and tRPC. */
const requestTooLarge = (maxBytes: number) =>
  new AppError("too_large", `The request is too large: the largest accepted is ${formatByteSize(maxBytes)}`);

/**
 * The request body as a stream that errors with the 413 (requestTooLarge) as soon as it grows past
 * `maxBytes`, and cancels the request's own stream then, so nothing more is read (a declared
 * Content-Length above the limit is refused on the first read, before anything is read). Nothing is
 * read until the stream is: a handler that refuses first (401, 404) never reads the body.
 */
export function boundedBody(request: Request, maxBytes: number): ReadableStream<Uint8Array> | null {
  if (!request.body) return null;
  const source = request.body;
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  let reader: ReadableStreamDefaultReader<Uint8Array> | null = null;
  let total = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (Number.isFinite(declared) && declared > maxBytes) {
        await source.cancel().catch(() => {});
        controller.error(requestTooLarge(maxBytes));
        return;
      }
      reader ??= source.getReader();
      const { done, value } = await reader.read();
      if (done) {
        controller.close();
        return;
      }
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel().catch(() => {});
        controller.error(requestTooLarge(maxBytes));
        return;
      }
      controller.enqueue(value);
    },
    async cancel(reason) {
      await (reader ?? source).cancel(reason).catch(() => {});
    },
  });
}

/**
 * The request body, refused with 413 as soon as it grows past `maxBytes` (a declared Content-Length
 * above it is refused before reading anything), so an oversized upload never sits whole in memory.
 */
export async function readBoundedBody(request: Request, maxBytes: number): Promise<Uint8Array> {
  const body = boundedBody(request, maxBytes);
  if (!body) return new Uint8Array();
  const chunks: Uint8Array[] = [];
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/**
 * Parses JSON text, refusing (400) what JSON.parse lets through but no client means: duplicate keys
 * (parsers disagree on which one wins), the keys in FORBIDDEN_KEYS, and nesting beyond MAX_JSON_NESTING.
 */
export function parseJson(text: string, example?: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new AppError("invalid", example ? `The body must be JSON: ${example}` : "The request body is not valid JSON");
  }
  checkJsonStructure(text);
  return value;
}

/** Decodes UTF-8 bytes strictly (invalid sequences are a 400, not replacement characters) and parses them. */
export function parseJsonBytes(bytes: Uint8Array, example?: string): unknown {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new AppError("invalid", "The request body is not valid UTF-8");
  }
  return parseJson(text, example);
}

/**
 * The JSON body of a REST request. A declared Content-Type must be JSON in UTF-8 (`application/json`
 * or `…+json`); none at all is read as JSON, as most tools send it. An empty body reads as `{}`, so the
 * schema names the missing fields.
 */
export async function readJsonBody(request: Request, options: { maxBytes?: number; example?: string } = {}): Promise<unknown> {
  const contentType = request.headers.get("content-type");
  if (contentType !== null && !isJsonContentType(contentType)) {
    throw new AppError("invalid", `The body must be JSON sent with Content-Type: application/json (not ${JSON.stringify(contentType.slice(0, 100))})`);
  }
  const bytes = await readBoundedBody(request, options.maxBytes ?? MAX_JSON_BODY_BYTES);
  if (new TextDecoder().decode(bytes).trim() === "") return {};
  return parseJsonBytes(bytes, options.example);
}

function isJsonContentType(contentType: string): boolean {
  const [mediaType = "", ...parameters] = contentType.split(";").map((part) => part.trim().toLowerCase());
  if (mediaType !== "application/json" && !/^application\/[a-z0-9.+-]+\+json$/.test(mediaType)) return false;
  const charset = parameters.find((parameter) => parameter.startsWith("charset="))?.slice("charset=".length).replace(/"/g, "");
  return charset === undefined || charset === "utf-8" || charset === "utf8";
}

/** One pass over valid JSON text: object keys (decoded), duplicates per object, and depth. */
function checkJsonStructure(text: string): void {
  // One entry per open container: the keys seen so far for an object, null for an array.
  const open: (Set<string> | null)[] = [];
  let expectingKey = false;
  for (let index = 0; index < text.length; index++) {
    const character = text[index];
    if (character === '"') {
      let end = index + 1;
      while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
      const keys = open.at(-1);
      if (keys && expectingKey) {
        const key = JSON.parse(text.slice(index, end + 1)) as string;
        if (FORBIDDEN_KEYS.has(key)) throw new AppError("invalid", `The body must not contain the key ${JSON.stringify(key)}`, key);
        if (keys.has(key)) throw new AppError("invalid", `The key ${JSON.stringify(key.slice(0, 100))} appears twice in one object of the body`, key.slice(0, 100));
        keys.add(key);
        expectingKey = false;
      }
      index = end;
    } else if (character === "{" || character === "[") {
      open.push(character === "{" ? new Set() : null);
      expectingKey = character === "{";
      if (open.length > MAX_JSON_NESTING) throw new AppError("invalid", `The body nests deeper than ${MAX_JSON_NESTING} levels`);
    } else if (character === "}" || character === "]") {
      open.pop();
    } else if (character === ",") {
      expectingKey = open.at(-1) instanceof Set;
    }
  }
}
