import zlib from "node:zlib";
import { AppError } from "../errors";

/**
 * The files of a roster zip, unpacked with a budget. A zip's own sizes are claims: an entry that
 * declares 200 bytes can inflate to gigabytes (a zip bomb), so nothing here trusts them. The central
 * directory says where each wanted entry's compressed bytes are (bounds-checked against the zip itself);
 * each is inflated by Node's zlib in 64 KiB chunks, on libuv's thread pool (off the event loop), and
 * every chunk produced is counted: past the budget the inflater is destroyed and the import refused
 * (413), having held at most the budget and one chunk. Nested zips are never opened (an inner zip is not
 * a CSV), and a zip of more than MAX_ZIP_ENTRIES entries is refused before anything is inflated.
 */

export interface ZipEntry {
  /** The entry's name as stored (a path inside the zip). */
  path: string;
  bytes: Uint8Array;
}

export interface ZipBudget {
  /** The zip's name, as the person gave it, for messages. */
  zipName: string;
  /** Which entries to unpack (the others are never inflated). */
  wanted: (path: string) => boolean;
  /** Bytes the wanted entries may unpack to, together. */
  maxUnpackedBytes: number;
  /** The name an entry goes by in messages (its base name). */
  displayName: (path: string) => string;
}

/** Far more than a OneRoster bundle holds (a dozen CSV files); a zip of more is not an export. */
export const MAX_ZIP_ENTRIES = 1_000;
const CHUNK_BYTES = 64 * 1024;

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
const EOCD_BYTES = 22;
const CENTRAL_BYTES = 46;
const LOCAL_BYTES = 30;
const STORED = 0;
const DEFLATED = 8;

/** A size in megabytes, as a person reads a file's size. */
export const megabytes = (bytes: number) => `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;

interface CentralEntry {
  path: string;
  flags: number;
  method: number;
  compressedSize: number;
  localOffset: number;
}

export async function unzipWithBudget(zip: Uint8Array, budget: ZipBudget): Promise<ZipEntry[]> {
  const entries = centralDirectory(zip, budget.zipName).filter((entry) => budget.wanted(entry.path));
  const seen = new Set<string>();
  for (const entry of entries) {
    const name = budget.displayName(entry.path);
    if (seen.has(name)) throw invalid(`${budget.zipName} holds ${name} more than once: zip one copy of each file`);
    seen.add(name);
    if (entry.flags & 0x1) throw invalid(`${name} inside ${budget.zipName} is encrypted: export the bundle without a password`);
    if (entry.method !== STORED && entry.method !== DEFLATED) {
      throw invalid(`${name} inside ${budget.zipName} is compressed in a way Markbook cannot read: zip the files again with your computer's own zip tool`);
    }
  }
  const unpacked: ZipEntry[] = [];
  let left = budget.maxUnpackedBytes;
  for (const entry of entries) {
    const compressed = compressedBytes(zip, entry, budget.zipName);
    const tooLarge = () => {
      const names = [...unpacked.map((done) => budget.displayName(done.path)), budget.displayName(entry.path)];
      const what = names.length === 1 ? `${names[0]} inside ${budget.zipName} unpacks` : `${names.join(" and ")} inside ${budget.zipName} unpack together`;
      return new AppError("too_large", `${what} to more than ${megabytes(budget.maxUnpackedBytes)}: split the export into smaller files`, "file");
    };
    const bytes = entry.method === STORED ? storedBytes(compressed, left, tooLarge) : await inflateWithin(compressed, left, tooLarge, budget.zipName);
    left -= bytes.byteLength;
    unpacked.push({ path: entry.path, bytes });
  }
  return unpacked;
}

const invalid = (message: string) => new AppError("invalid", message, "file");
const cannotOpen = (zipName: string) => invalid(`${zipName} is not a zip file that can be opened`);

/** The entries the zip's central directory lists, every offset and length checked against the zip. */
function centralDirectory(zip: Uint8Array, zipName: string): CentralEntry[] {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  // The end record sits in the last 22 bytes plus a comment of at most 65,535.
  let end = -1;
  for (let offset = zip.byteLength - EOCD_BYTES; offset >= Math.max(0, zip.byteLength - EOCD_BYTES - 0xffff); offset--) {
    if (view.getUint32(offset, true) === EOCD_SIGNATURE) {
      end = offset;
      break;
    }
  }
  if (end < 0) throw cannotOpen(zipName);
  const count = view.getUint16(end + 10, true);
  const size = view.getUint32(end + 12, true);
  const start = view.getUint32(end + 16, true);
  if (count === 0xffff || size === 0xffffffff || start === 0xffffffff) {
    throw invalid(`${zipName} is a ZIP64 archive, which Markbook does not open (a roster export never needs one): zip the CSV files again with your computer's own zip tool`);
  }
  if (count > MAX_ZIP_ENTRIES) throw invalid(`${zipName} holds ${count.toLocaleString("en")} files: a OneRoster bundle has a dozen; zip only its CSV files`);
  if (start + size > end) throw cannotOpen(zipName);
  const entries: CentralEntry[] = [];
  const decoder = new TextDecoder("utf-8");
  let offset = start;
  for (let index = 0; index < count; index++) {
    if (offset + CENTRAL_BYTES > start + size || view.getUint32(offset, true) !== CENTRAL_SIGNATURE) throw cannotOpen(zipName);
    const nameLength = view.getUint16(offset + 28, true);
    const extraLength = view.getUint16(offset + 30, true);
    const commentLength = view.getUint16(offset + 32, true);
    const next = offset + CENTRAL_BYTES + nameLength + extraLength + commentLength;
    if (next > start + size) throw cannotOpen(zipName);
    entries.push({
      path: decoder.decode(zip.subarray(offset + CENTRAL_BYTES, offset + CENTRAL_BYTES + nameLength)),
      flags: view.getUint16(offset + 8, true),
      method: view.getUint16(offset + 10, true),
      compressedSize: view.getUint32(offset + 20, true),
      localOffset: view.getUint32(offset + 42, true),
    });
    offset = next;
  }
  return entries;
}

/** An entry's compressed bytes: after its local header, as long as the central directory says, inside the zip. */
function compressedBytes(zip: Uint8Array, entry: CentralEntry, zipName: string): Uint8Array {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const local = entry.localOffset;
  if (local + LOCAL_BYTES > zip.byteLength || view.getUint32(local, true) !== LOCAL_SIGNATURE) throw cannotOpen(zipName);
  const dataStart = local + LOCAL_BYTES + view.getUint16(local + 26, true) + view.getUint16(local + 28, true);
  const dataEnd = dataStart + entry.compressedSize;
  if (dataEnd > zip.byteLength) throw cannotOpen(zipName);
  return zip.subarray(dataStart, dataEnd);
}

function storedBytes(bytes: Uint8Array, left: number, tooLarge: () => AppError): Uint8Array {
  if (bytes.byteLength > left) throw tooLarge();
  return bytes;
}

/**
 * Inflates raw deflate data in chunks on zlib's thread pool, counting what comes out; past `left`
 * bytes the inflater is destroyed (zlib's stream waits for each chunk to be taken before it makes the
 * next, so no more than one chunk is made past the limit).
 */
async function inflateWithin(compressed: Uint8Array, left: number, tooLarge: () => AppError, zipName: string): Promise<Uint8Array> {
  const inflater = zlib.createInflateRaw({ chunkSize: CHUNK_BYTES });
  const chunks: Buffer[] = [];
  let total = 0;
  inflater.end(compressed);
  try {
    for await (const chunk of inflater as AsyncIterable<Buffer>) {
      total += chunk.byteLength;
      if (total > left) throw tooLarge();
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw cannotOpen(zipName); // damaged deflate data
  } finally {
    inflater.destroy();
  }
  return Buffer.concat(chunks, total);
}
