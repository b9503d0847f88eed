import zlib from "node:zlib";

/**
 * Hostile roster zips, made by hand so that they can lie: a zip writer whose entries declare any size,
 * and deflate streams of gigabytes built in milliseconds. A deflate stream may be cut after a full
 * flush (its blocks end on a byte and refer to nothing before), so one compressed megabyte of zeros or
 * of CSV rows, repeated, is a valid stream of any multiple of a megabyte; an empty final block ends it.
 */

export interface HandMadeEntry {
  name: string;
  /** The bytes stored: already deflated when `method` is 8. */
  data: Uint8Array;
  method?: 0 | 8;
  /** What the entry claims to unpack to (the truth by default). */
  declaredSize?: number;
  flags?: number;
}

const MiB = 1024 * 1024;
const crcOf = (bytes: Uint8Array) => zlib.crc32(bytes);

/** A zip of the entries as given (names in UTF-8), the sizes as declared. */
export function handMadeZip(entries: readonly HandMadeEntry[], options: { declaredCount?: number } = {}): Uint8Array<ArrayBuffer> {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, "utf8");
    const method = entry.method ?? 0;
    const declared = entry.declaredSize ?? entry.data.byteLength;
    const crc = method === 0 ? crcOf(entry.data) : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE((entry.flags ?? 0) | 0x800, 6);
    local.writeUInt16LE(method, 8);
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(entry.data.byteLength, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    locals.push(local, name, Buffer.from(entry.data));
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE((entry.flags ?? 0) | 0x800, 8);
    central.writeUInt16LE(method, 10);
    central.writeUInt32LE(crc, 16);
    central.writeUInt32LE(entry.data.byteLength, 20);
    central.writeUInt32LE(declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    centrals.push(central, name);
    offset += 30 + name.length + entry.data.byteLength;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  const count = options.declaredCount ?? entries.length;
  end.writeUInt16LE(Math.min(count, 0xffff), 8);
  end.writeUInt16LE(Math.min(count, 0xffff), 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...locals, directory, end]));
}

/** A raw deflate stream of `head` (once) and then `megabytes` times `piece` (exactly 1 MiB). */
function repeatedDeflate(head: Uint8Array, piece: Uint8Array, megabytes: number): Uint8Array<ArrayBuffer> {
  if (piece.byteLength !== MiB) throw new Error("the repeated piece must be 1 MiB");
  const flushed = (bytes: Uint8Array) => zlib.deflateRawSync(bytes, { level: 9, finishFlush: zlib.constants.Z_FULL_FLUSH });
  const block = flushed(piece);
  const blocks: Buffer[] = head.byteLength > 0 ? [flushed(head)] : [];
  for (let index = 0; index < megabytes; index++) blocks.push(block);
  blocks.push(zlib.deflateRawSync(Buffer.alloc(0)));
  return new Uint8Array(Buffer.concat(blocks));
}

/** A classic zip bomb: users.csv declaring 200 bytes, deflated from `gigabytes` of zeros (about 1 MB compressed per GB). */
export function zeroBomb(gigabytes: number, name = "users.csv"): Uint8Array<ArrayBuffer> {
  const data = repeatedDeflate(new Uint8Array(), new Uint8Array(MiB), Math.round(gigabytes * 1024));
  return handMadeZip([{ name, data, method: 8, declaredSize: 200 }]);
}

/**
 * users.csv with a real OneRoster header and a billion rows ("1,s\n", 4 bytes each: 4 GB unpacked),
 * declaring 200 bytes: stopped by the unpacking budget, not by the row limit after the whole file.
 */
export function billionRowBomb(): Uint8Array<ArrayBuffer> {
  const row = "1,s\n";
  const piece = new TextEncoder().encode(row.repeat(MiB / row.length));
  const megabytes = Math.ceil(1_000_000_000 / (MiB / row.length));
  const data = repeatedDeflate(new TextEncoder().encode("sourcedId,role\n"), piece, megabytes);
  return handMadeZip([{ name: "users.csv", data, method: 8, declaredSize: 200 }]);
}

/** A zip whose users.csv is itself a zip (holding a bomb), the first layer of a 42.zip. */
export function nestedBomb(): Uint8Array<ArrayBuffer> {
  const inner = zeroBomb(0.25);
  return handMadeZip([{ name: "users.csv", data: zlib.deflateRawSync(inner), method: 8, declaredSize: inner.byteLength }]);
}

/** `count` tiny stored entries (a zip of many files costs its reader per entry, before any inflating). */
export function manyEntries(count: number): Uint8Array<ArrayBuffer> {
  const entries = Array.from({ length: count }, (_, index) => ({ name: `f${index}.csv`, data: new TextEncoder().encode("x\n") }));
  return handMadeZip([{ name: "users.csv", data: new TextEncoder().encode("sourcedId,role\n1,student\n") }, ...entries]);
}

/** Two bundle files of the same name (in two folders): the overlapping-entries trick reads one data many times. */
export function duplicatedUsers(): Uint8Array<ArrayBuffer> {
  const csv = new TextEncoder().encode("sourcedId,role\n1,student\n");
  return handMadeZip([
    { name: "a/users.csv", data: csv },
    { name: "b/users.csv", data: csv },
  ]);
}
