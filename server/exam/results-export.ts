import { and, eq, inArray, isNotNull } from "drizzle-orm";
import ExcelJS from "exceljs";
import { z } from "zod";
import { compareCollated } from "../../lib/text/names";
import type { Tx } from "../db/client";
import { classes, examMarkEntries, users } from "../db/schema";
import { type BatchResults, getResults, resultsInput } from "./batches";
import { csvField, revealNamesQuery } from "./results-csv";
import { type SubmissionState, submissionState } from "../../lib/rules/submission-state";

/**
 * The teacher's export of a batch's results, in the shape a spreadsheet and a school's information
 * system read (issue 33): one row per student, the school's own id for them (the SIS id or UPN the roster
 * import kept), surname and first name apart, the class, a plain state, and a total and percentage only
 * where the script is marked in full (a blank, never a 0 or a part-total that sorts as a low score).
 * Served as CSV (UTF-8 with a byte-order mark, CRLF) and as .xlsx; the contract's CSV
 * (results-csv.ts, /api/exam/batches/{id}/csv) is left exactly as the contract says (docs/spec/classroom-api.md
 * "Batches, scans, marks, results", GET …/csv).
 * See docs/decisions.md, "The teacher's results export".
 */

/** The states the export writes, for people and for a system that filters on them. */
const exportStateWords: Record<SubmissionState, string> = {
  marked: "marked",
  being_marked: "incomplete",
  not_marked: "not marked",
  absent: "absent",
  no_scan: "no scan yet",
  needs_student: "needs a student",
};

type ExportCell = string | number | null;
/** `fraction`: a share of 1 (0.85), written 85 in the CSV and formatted 85.0% in the workbook. */
type ColumnKind = "text" | "number" | "fraction";

export interface ResultsExport {
  batch: BatchResults["batch"];
  columns: { header: string; kind: ColumnKind }[];
  rows: ExportCell[][];
}

export const resultsExportQuery = z.object({ reveal_names: revealNamesQuery });

/** Excel keeps at most 32,767 characters in a cell; the comments cell stays below that. */
const MAX_COMMENTS_CHARACTERS = 32_000;

/**
 * The export of a batch as the caller may read it: the same reads and refusals as the results and the
 * contract's CSV (docs/spec/classroom-api.md "Batches, scans, marks, results"; another school's batch or a student:
 * 404; reveal_names by anyone but the owner of an
 * anonymous batch: 403). Where names are hidden the id and name cells are blank and rows go in script
 * order, as on the results screen; an anonymous batch has a Script column first.
 */
export async function getResultsExport(tx: Tx, callerId: string, input: z.input<typeof resultsInput>): Promise<ResultsExport> {
  const results = await getResults(tx, callerId, input);
  const { batch, names, questions } = results;
  const [group] = batch.class_id ? await tx.select({ name: classes.name }).from(classes).where(eq(classes.id, batch.class_id)) : [];
  const className = group?.name ?? "";
  const studentIds = names === "shown" ? results.results.flatMap((result) => (result.student_id ? [result.student_id] : [])) : [];
  const people =
    studentIds.length > 0
      ? await tx.select({ id: users.id, full_name: users.full_name, display_name: users.display_name, sis_id: users.sis_id }).from(users).where(inArray(users.id, studentIds))
      : [];
  const personById = new Map(people.map((person) => [person.id, person]));
  const commentRows = await tx
    .select({ submission_id: examMarkEntries.submission_id, question_id: examMarkEntries.question_id, comment: examMarkEntries.comment })
    .from(examMarkEntries)
    .where(and(eq(examMarkEntries.batch_id, batch.id), isNotNull(examMarkEntries.comment)));
  const comments = new Map<string, string>();
  for (const row of commentRows) comments.set(`${row.submission_id} ${row.question_id}`, row.comment!);

  const maxTotal = questions.every((q) => q.max_marks !== null) ? questions.reduce((sum, q) => sum + q.max_marks!, 0) : null;
  const rows = results.results.map((result) => {
    const marked = questions.filter((q) => result.marks[q.id] !== null && result.marks[q.id] !== undefined).length;
    const state = submissionState({ ...result, marks_entered: marked });
    const complete = state === "marked";
    const person = result.student_id ? personById.get(result.student_id) : undefined;
    const name = names === "shown" && result.student_name !== null ? splitName(person?.full_name ?? result.student_name, person?.display_name ?? null) : null;
    const total = complete ? result.total : null;
    const said = questions.flatMap((q) => {
      const comment = comments.get(`${result.submission_id} ${q.id}`)?.replace(/\s+/g, " ").trim();
      return comment ? [`${q.label}: ${comment}`] : [];
    });
    return {
      script: result.script_number,
      surname: name?.surname ?? "",
      first: name?.first ?? "",
      cells: [
        ...(batch.anonymous ? [result.script_number] : []),
        names === "shown" ? (person?.sis_id ?? "") : "",
        name?.surname ?? "",
        name?.first ?? "",
        className,
        exportStateWords[state],
        total,
        maxTotal,
        total !== null && maxTotal ? total / maxTotal : null,
        ...questions.map((q) => result.marks[q.id] ?? null),
        cut(said.join(" | "), MAX_COMMENTS_CHARACTERS),
      ] as ExportCell[],
    };
  });
  // Hidden names: script order, as getResults gives it (an order by name would tell who is who).
  // Shown: by surname, first name (one class per batch), scans without a student last; ties by script.
  if (names === "shown") {
    rows.sort(
      (a, b) =>
        Number(a.surname === "" && a.first === "") - Number(b.surname === "" && b.first === "") ||
        compareCollated(a.surname, b.surname) ||
        compareCollated(a.first, b.first) ||
        a.script - b.script,
    );
  }
  return {
    batch,
    columns: [
      ...(batch.anonymous ? [{ header: "Script", kind: "number" as const }] : []),
      { header: "School ID", kind: "text" },
      { header: "Surname", kind: "text" },
      { header: "First name", kind: "text" },
      { header: "Class", kind: "text" },
      { header: "State", kind: "text" },
      { header: "Total", kind: "number" },
      { header: "Max", kind: "number" },
      { header: "Percentage", kind: "fraction" },
      ...questions.map((q) => ({ header: q.label, kind: "number" as const })),
      { header: "Comments", kind: "text" },
    ],
    rows: rows.map((row) => row.cells),
  };
}

/**
 * A full name as surname and first name. The roster import stores "<first> <last>" with the first
 * (preferred) name as the display name: when the full name starts with it, the rest is the surname
 * ("Ana María" + "de la Cruz"). Otherwise the last word is the surname, as the lists sort (lib/text/names.ts).
 */
export function splitName(fullName: string, displayName: string | null): { surname: string; first: string } {
  const full = fullName.trim().replace(/\s+/g, " ");
  const first = displayName?.trim().replace(/\s+/g, " ");
  if (first && full.startsWith(`${first} `)) return { first, surname: full.slice(first.length + 1) };
  const words = full.split(" ");
  if (words.length < 2) return { first: "", surname: full };
  return { first: words.slice(0, -1).join(" "), surname: words.at(-1)! };
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/** A fraction as the CSV writes it: a percentage with at most one decimal (0.855 → "85.5"). */
const percentText = (fraction: number) => String(Math.round(fraction * 1000) / 10);

/**
 * The export as CSV for a spreadsheet: UTF-8 with a byte-order mark (without one, Excel reads the bytes
 * as the PC's code page and shows "ChloÃ©"), CRLF line ends, RFC 4180 quoting, formula-looking text
 * prefixed with an apostrophe as in the contract's CSV (results-csv.ts), blank cells for nothing.
 */
export function renderExportCsv(table: ResultsExport): string {
  const header = table.columns.map((column) => csvField(column.header));
  const lines = table.rows.map((row) =>
    row
      .map((cell, index) => {
        if (cell === null) return "";
        if (typeof cell === "number") return table.columns[index]!.kind === "fraction" ? percentText(cell) : String(cell);
        return csvField(cell);
      })
      .join(","),
  );
  return `\uFEFF${[header.join(","), ...lines].join("\r\n")}\r\n`;
}

/**
 * Characters a workbook cannot keep (a workbook with one of those XML 1.0 refuses does not open): control
 * characters but tab and line breaks, DEL and the C1 controls, U+FFFE/U+FFFF, and lone surrogates.
 */
// eslint-disable-next-line no-control-regex -- control characters are what this strips
const NOT_IN_WORKBOOK = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Text as a workbook cell keeps it: the characters above dropped, line breaks as LF (XML reads a bare CR
 * as LF anyway), and a literal `_x0041_` escaped as `_x005F_x0041_` (Excel reads `_xHHHH_` as the
 * character HHHH). Blank is an empty cell.
 */
function workbookText(text: string): string | null {
  return (
    text
      .replace(NOT_IN_WORKBOOK, "")
      .replace(/\r\n?/g, "\n")
      .replace(/_x[0-9a-f]{4}_/gi, (escape) => `_x005F${escape}`) || null
  );
}

/**
 * The export as an Excel workbook: one sheet "Results", the header row bold and frozen, numbers as
 * numbers, the percentage as a fraction formatted 0.0%, blank cells for nothing. Text stays text (a cell
 * is a formula only when written as one, so no apostrophe is needed).
 */
export async function renderExportXlsx(table: ResultsExport): Promise<Uint8Array> {
  const workbook = new ExcelJS.Workbook();
  workbook.creator = "Markbook";
  workbook.created = table.batch.created_at;
  const sheet = workbook.addWorksheet("Results", { views: [{ state: "frozen", ySplit: 1 }] });
  sheet.addRow(table.columns.map((column) => workbookText(column.header)));
  for (const row of table.rows) sheet.addRow(row.map((cell) => (typeof cell === "string" ? workbookText(cell) : cell)));
  sheet.getRow(1).font = { bold: true };
  table.columns.forEach((column, index) => {
    const sheetColumn = sheet.getColumn(index + 1);
    sheetColumn.width = column.header === "Comments" ? 60 : column.kind === "text" ? 18 : Math.max(8, column.header.length + 2);
    if (column.kind === "fraction") {
      sheetColumn.eachCell((cell, rowNumber) => {
        if (rowNumber > 1) cell.numFmt = "0.0%";
      });
    }
  });
  return new Uint8Array(await workbook.xlsx.writeBuffer());
}
