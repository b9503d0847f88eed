import { parse } from "csv-parse";
import { AppError } from "../errors";

/**
 * One CSV file of a roster, read as a school's export comes: UTF-8 (with or without a BOM), UTF-16 with
 * a BOM (Excel's "Unicode text"), or Windows-1252 (Excel's "CSV" on Windows) when it is not UTF-8; comma,
 * semicolon or tab delimited (whichever the header line uses most); quoted fields, CRLF and blank lines.
 */

/** A CSV as rows of text under a header; each row knows its line in the file, as a spreadsheet numbers it. */
export interface CsvTable {
  /** The file's name, as the person gave it ("pupils.csv", "users.csv"). */
  fileName: string;
  /** Column names, unique: a blank header cell is "Column N", a repeated one gets " (2)". */
  columns: string[];
  rows: CsvRow[];
}

interface CsvRow {
  /** The line of the file where the row begins (the header is line 1). */
  line: number;
  /** Values by column name, trimmed; a missing cell is "". */
  values: Record<string, string>;
}

const notCsv = (fileName: string, why: string) => new AppError("invalid", `${fileName} is not a CSV file: ${why}`, "file");

/**
 * A school's file is read a slice at a time, yielding to the event loop between slices: a 5 MB CSV (the
 * upload limit) or a bundle's 20 MB took 0.3–0.9 s to decode and parse in one go, during which no other
 * request of any school was answered (docs/benchmarks.md, bench:import). A slice costs a few milliseconds.
 */
const SLICE_BYTES = 256 * 1024;
const SLICE_CHARACTERS = 64 * 1024;
const ROWS_PER_TURN = 2000;
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

// Text files never hold NUL or most other control bytes; a PDF, an image or a spreadsheet (.xlsx) does.
// eslint-disable-next-line no-control-regex -- looking for control bytes is the point
const BINARY = /[\u0000-\u0008\u000e-\u001a\u001c-\u001f]/;

/**
 * The bytes as text in `encoding` (null when they are not valid in it), or a 400 naming the file when they
 * hold binary data. A UTF-16 file (its BOM says it is text) is not asked: a header cell may hold a NUL.
 */
async function decodeAs(bytes: Uint8Array, encoding: string, fileName: string): Promise<string[] | null> {
  const binaryIsRefused = !encoding.startsWith("utf-16");
  const decoder = new TextDecoder(encoding, { fatal: encoding === "utf-8", ignoreBOM: false });
  const parts: string[] = [];
  try {
    for (let offset = 0; offset < bytes.byteLength; offset += SLICE_BYTES) {
      const part = decoder.decode(bytes.subarray(offset, offset + SLICE_BYTES), { stream: offset + SLICE_BYTES < bytes.byteLength });
      if (binaryIsRefused && BINARY.test(part)) throw notCsv(fileName, "it holds binary data (save the spreadsheet as CSV first)");
      parts.push(part);
      await nextTurn();
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    return null;
  }
  return parts;
}

/** Text of a CSV file's bytes, in the slices decoded (never joined: 20 MB copied at once is a wait too), or a 400 naming the file when it is not text. */
async function decodeCsvText(bytes: Uint8Array, fileName: string): Promise<string[]> {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return (await decodeAs(bytes.subarray(2), "utf-16le", fileName))!;
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return (await decodeAs(bytes.subarray(2), "utf-16be", fileName))!;
  return (await decodeAs(bytes, "utf-8", fileName)) ?? (await decodeAs(bytes, "windows-1252", fileName))!;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

interface ParsedRecord {
  record: string[];
  info: { lines: number };
}

/** The text's first `limit` records (csv-parse, as a stream fed a slice at a time). */
async function parseRecords(text: readonly string[], delimiter: string, limit: number): Promise<ParsedRecord[]> {
  const parser = parse({ delimiter, info: true, skip_empty_lines: true, relax_column_count: true, relax_quotes: true });
  const records: ParsedRecord[] = [];
  parser.on("data", (record: ParsedRecord) => records.push(record));
  const ended = new Promise<void>((resolve, reject) => {
    parser.on("end", resolve);
    parser.on("error", reject);
  });
  for (const part of text) {
    for (let offset = 0; offset < part.length; ) {
      let end = Math.min(offset + SLICE_CHARACTERS, part.length);
      // Never between the two halves of a surrogate pair (an emoji in a name): each slice must be whole text.
      if (end < part.length && isHighSurrogate(part.charCodeAt(end - 1))) end += 1;
      const slice = part.slice(offset, end);
      offset = end;
      await new Promise<void>((resolve, reject) => parser.write(slice, (error) => (error ? reject(error) : resolve())));
      await nextTurn();
      // A file far over the limit is not read to its end.
      if (records.length >= limit) {
        parser.destroy();
        return records.slice(0, limit);
      }
    }
  }
  parser.end();
  await ended;
  return records.slice(0, limit);
}

/** The delimiter the header line uses most, outside quotes: comma, semicolon or tab. */
function detectDelimiter(text: string): string {
  const counts = new Map([[",", 0], [";", 0], ["\t", 0]]);
  let quoted = false;
  for (const character of text) {
    if (character === '"') quoted = !quoted;
    else if (!quoted && (character === "\n" || character === "\r")) break;
    else if (!quoted && counts.has(character)) counts.set(character, counts.get(character)! + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1])[0]![0];
}

function uniqueColumnNames(header: string[]): string[] {
  const seen = new Map<string, number>();
  return header.map((cell, index) => {
    const name = cell.trim() || `Column ${index + 1}`;
    const count = (seen.get(name.toLowerCase()) ?? 0) + 1;
    seen.set(name.toLowerCase(), count);
    return count === 1 ? name : `${name} (${count})`;
  });
}

/** Parses a CSV file into a table, refusing (400) an empty file, one over `maxRows`, or one that is not CSV. */
export async function parseCsvTable(bytes: Uint8Array, fileName: string, maxRows: number): Promise<CsvTable> {
  const text = await decodeCsvText(bytes, fileName);
  if (text[0]?.charCodeAt(0) === 0xfeff) text[0] = text[0].slice(1);
  if (!text.some((part) => /\S/.test(part))) throw new AppError("invalid", `${fileName} is empty: it needs a header row and a row per person`, "file");
  let records: ParsedRecord[];
  try {
    // The header, the rows allowed, and one more to know the file is over the limit.
    records = await parseRecords(text, detectDelimiter(text[0]!), maxRows + 2);
  } catch (error) {
    const reason = (error as { code?: string }).code === "CSV_QUOTE_NOT_CLOSED" ? "a quote is opened and never closed" : "it cannot be read as CSV";
    throw notCsv(fileName, reason);
  }
  const [header, ...body] = records.filter(({ record }) => record.some((cell) => cell.trim() !== ""));
  if (!header) throw new AppError("invalid", `${fileName} is empty: it needs a header row and a row per person`, "file");
  if (body.length > maxRows) {
    throw new AppError("too_large", `${fileName} has more than ${maxRows.toLocaleString("en")} rows: split it into smaller files`, "file");
  }
  const columns = uniqueColumnNames(header.record);
  const rows: CsvRow[] = [];
  for (const { record, info } of body) {
    const linesInside = record.reduce((sum, cell) => sum + (cell.match(/\n/g)?.length ?? 0), 0);
    const values: Record<string, string> = {};
    columns.forEach((column, index) => (values[column] = (record[index] ?? "").trim()));
    rows.push({ line: info.lines - linesInside, values });
    if (rows.length % ROWS_PER_TURN === 0) await nextTurn();
  }
  return { fileName, columns, rows };
}
