import type { BatchResults } from "./batches";

/**
 * The results of a batch as CSV (RFC 4180): CRLF line ends, fields quoted when they hold a comma, a
 * quote or a line break, quotes doubled. Text that a spreadsheet would run as a formula (a leading
 * =, +, -, @, tab or carriage return) is prefixed with an apostrophe, as OWASP recommends.
 * Header: student_name, student_id, status, one column per question label in order, total.
 * Absent students are included, with blank mark cells and a blank total.
 */
export function renderResultsCsv(results: BatchResults): string {
  const header = ["student_name", "student_id", "status", ...results.questions.map((q) => q.label), "total"];
  const rows = results.results.map((result) => [
    result.student_name ?? "",
    result.student_id ?? "",
    result.status,
    ...results.questions.map((q) => formatNumber(result.marks[q.id] ?? null)),
    formatNumber(result.total),
  ]);
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

export function resultsCsvFileName(batchId: string): string {
  return `batch-${batchId}.csv`;
}
