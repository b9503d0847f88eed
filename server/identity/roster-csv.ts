import { parse } from "csv-parse/sync";
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

/** Text of a CSV file's bytes, or a 400 naming the file when it is not text. */
function decodeCsvText(bytes: Uint8Array, fileName: string): string {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return new TextDecoder("utf-16le").decode(bytes.subarray(2));
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return new TextDecoder("utf-16be").decode(bytes.subarray(2));
  // Text files never hold NUL or most other control bytes; a PDF, an image or a spreadsheet (.xlsx) does.
  // eslint-disable-next-line no-control-regex -- looking for control bytes is the point
  const binary = /[\u0000-\u0008\u000e-\u001a\u001c-\u001f]/;
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    text = new TextDecoder("windows-1252").decode(bytes);
  }
  if (binary.test(text)) throw notCsv(fileName, "it holds binary data (save the spreadsheet as CSV first)");
  return text;
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
export function parseCsvTable(bytes: Uint8Array, fileName: string, maxRows: number): CsvTable {
  const text = decodeCsvText(bytes, fileName).replace(/^\uFEFF/, "");
  if (text.trim() === "") throw new AppError("invalid", `${fileName} is empty: it needs a header row and a row per person`, "file");
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text, {
      delimiter: detectDelimiter(text),
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
      relax_quotes: true,
      // Parsing stops here: a file far over the limit is not read to its end.
      to: maxRows + 2,
    }) as unknown as { record: string[]; info: { lines: number } }[];
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
  const rows = body.map(({ record, info }) => {
    const linesInside = record.reduce((sum, cell) => sum + (cell.match(/\n/g)?.length ?? 0), 0);
    const values: Record<string, string> = {};
    columns.forEach((column, index) => (values[column] = (record[index] ?? "").trim()));
    return { line: info.lines - linesInside, values };
  });
  return { fileName, columns, rows };
}
