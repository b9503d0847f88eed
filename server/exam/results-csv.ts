import { z } from "zod";
import { emptyAsAbsent, queryBoolean } from "../../lib/rules/input-rules";
import { scriptLabel } from "./anonymity";
import type { BatchResults } from "./batches";
import { submissionState, submissionStateLabel } from "../../lib/rules/submission-state";

/**
 * The results of a batch as CSV (RFC 4180): CRLF line ends, fields quoted when they hold a comma, a
 * quote or a line break, quotes doubled. Text that a spreadsheet would run as a formula (a leading
 * =, +, -, @, tab or carriage return) is prefixed with an apostrophe, as OWASP recommends.
 * Header: student_name, student_id, status, one column per question label in order, total. The status
 * is the state a teacher reads on the screens (lib/rules/submission-state.ts): "No scan yet",
 * "Absent", "Being marked (2 of 5)"… Students without a script (no scan yet, or absent) are included,
 * with blank mark cells and a blank total (never a 0 nobody gave). Where names are hidden (an anonymous
 * batch not revealed by its owner) the student_name cell holds the script's label ("Script 17") and
 * student_id is blank: the contract fixes the header (docs/spec/classroom-api.md "Batches, scans, marks, results",
 * GET …/csv), and a sheet of blank names would be no use.
 */
export function renderResultsCsv(results: BatchResults): string {
  const header = ["student_name", "student_id", "status", ...results.questions.map((q) => q.label), "total"];
  const rows = results.results.map((result) => {
    const marked = results.questions.filter((q) => result.marks[q.id] !== null && result.marks[q.id] !== undefined).length;
    return [
      results.names === "hidden" ? scriptLabel(result.script_number) : (result.student_name ?? ""),
      result.student_id ?? "",
      submissionStateLabel(submissionState({ ...result, marks_entered: marked }), { marked, of: results.questions.length }),
      ...results.questions.map((q) => formatNumber(result.marks[q.id] ?? null)),
      formatNumber(result.total),
    ];
  });
  return [header, ...rows].map((row) => row.map(csvField).join(",")).join("\r\n") + "\r\n";
}

function formatNumber(value: number | null): string {
  return value === null ? "" : String(value);
}

const formulaStart = /^[=+\-@\t\r]/;

export function csvField(value: string): string {
  const safe = formulaStart.test(value) ? `'${value}` : value;
  return /[",\r\n]/.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe;
}

/** `reveal_names=true`: the students' names of an anonymous batch, for its owner (403 for anyone else). */
export const revealNamesQuery = queryBoolean
  .default(false)
  .meta({ description: "true: the students' names of an anonymous batch, for its owner only (403 for anyone else); ignored for other batches" });

/** Which name the download gets: the contract's `batch-<id>.csv` (the default), or the batch's title and date. */
export const resultsCsvQuery = z.object({
  reveal_names: revealNamesQuery,
  name: z
    .preprocess(emptyAsAbsent, z.enum(["id", "title"], { error: "must be id or title" }).optional())
    .meta({ description: "id (default): batch-<id>.csv; title: `<batch title> - <yyyy-mm-dd>.csv`" }),
});

/** The contract's name of the CSV: `batch-<id>.csv` (docs/spec/classroom-api.md "Batches, scans, marks, results"). */
export function resultsCsvFileName(batchId: string): string {
  return `batch-${batchId}.csv`;
}

/** Characters no common file system takes in a name, and control characters. */
// eslint-disable-next-line no-control-regex -- control characters are what this strips
const UNSAFE_IN_FILE_NAME = /[\u0000-\u001f\u007f:*?"<>|]/g;
const MAX_TITLE_CHARACTERS = 100;

/**
 * The name a person saves the CSV under: the batch's title and the day it was created, in the
 * server's time zone (the school's): `10A Maths mock - 2026-11-24.csv`. Slashes become "-", the other
 * characters a file system refuses a space; an empty title reads "Results".
 */
export function titledCsvFileName(batch: { title: string; created_at: Date }): string {
  return titledFileName(batch, "csv");
}

/** The same name with another extension (the teacher's export: `.csv`, `.xlsx`). */
export function titledFileName(batch: { title: string; created_at: Date }, extension: string): string {
  const title = fileNameTitle(batch.title, "Results");
  const date = batch.created_at;
  const day = `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;
  return `${title} - ${day}.${extension}`;
}

/**
 * A title as the start of a file name: slashes become "-", the other characters a file system refuses a
 * space, cut to 100 characters; `fallback` when nothing is left.
 */
export function fileNameTitle(title: string, fallback: string): string {
  return (
    title
      .normalize("NFC")
      .replace(/[/\\]/g, "-")
      .replace(UNSAFE_IN_FILE_NAME, " ")
      .replace(/\s+/g, " ")
      .slice(0, MAX_TITLE_CHARACTERS)
      .replace(/^[\s.-]+|[\s.-]+$/g, "") || fallback
  );
}

/**
 * `attachment` with the name said twice, as RFC 6266 asks: `filename` in ASCII for old clients
 * (accents dropped, other characters "_"), and `filename*` in UTF-8 for every current browser.
 */
export function attachmentDisposition(fileName: string): string {
  const ascii = fileName
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .replace(/[^\x20-\x7e]|["\\]/g, "_");
  const encoded = encodeURIComponent(fileName).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
