import { queryBoolean } from "../../lib/rules/input-rules";
import { errorMeaning, fileReply } from "../http/route";
import { defineOperation } from "../operations/define";
import {
  archiveBatch,
  batchIdInput,
  batchListOutput,
  batchOutput,
  createBatch,
  createBatchInput,
  createdBatchOutput,
  getQueue,
  getResults,
  listBatches,
  listBatchesInput,
  queueOutput,
  resultsInput,
  resultsOutput,
  setAnonymousInput,
  setBatchAnonymous,
} from "./batches";
import { batchOverviewOutput, listBatchOverview } from "./batch-overview";
import { attachmentDisposition, resultsCsvQuery, revealNamesQuery } from "./results-csv";
import { exportCsvDownload, exportXlsxDownload, resultsCsvDownload } from "./results-downloads";
import { resultsExportQuery } from "./results-export";

/**
 * Batches (`exam.batches.<name>` over tRPC; REST under /api/exam/batches): one sitting of a template by
 * a class, its marking queue, its results and their downloads. Listed in the order the OpenAPI document
 * lists their REST faces. Another school's batch is not found, whoever asks, before any role is asked.
 */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;
const notOwner = "Not the owner";
const revealRefused = "reveal_names asked by someone other than the owner of an anonymous batch";

/** REST's list takes its filters from the query string, so include_archived is "true"/"false" there. */
const listBatchesQuery = listBatchesInput.extend({ include_archived: queryBoolean.default(false).meta({ description: "Include archived batches" }) });
/** REST's results take reveal_names from the query string ("true"/"false"). */
const resultsQueryInput = batchIdInput.extend({ reveal_names: revealNamesQuery });
const resultsCsvInput = batchIdInput.extend(resultsCsvQuery.shape);
const resultsExportInput = batchIdInput.extend(resultsExportQuery.shape);

const exportColumns =
  "one row per student: (Script, for an anonymous batch), School ID (the SIS id or UPN of the roster import), Surname, First name, Class, State (marked, incomplete, not marked, absent, no scan yet, needs a student), Total and Percentage (blank unless marked in full), Max, one column per question label, Comments";
const XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

/** A download the browser must not keep: the results change as marking goes on. */
const attachment = (body: BodyInit, contentType: string, fileName: string) =>
  new Response(body, { headers: { "content-type": contentType, "content-disposition": attachmentDisposition(fileName), "cache-control": "no-store" } });

export const batchOperations = {
  create: defineOperation({
    kind: "mutation",
    input: createBatchInput,
    output: createdBatchOutput,
    // createBatch opens its own transaction (the roster's submissions are written as the service).
    transaction: "database",
    role: "signed-in",
    handler: ({ db, caller, input }) => createBatch(db, caller.id, input),
    rest: {
      method: "POST",
      path: "/api/exam/batches",
      operationId: "createBatch",
      tags,
      summary: "Create a batch; each active enrollee of class_id becomes an absent submission",
      status: 201,
      reply: "The batch with submission_count",
      errors: { 400: invalid, 404: notVisible, 409: "The template is archived", 500: "The batch could not be created" },
    },
  }),

  /** tRPC's list: include_archived is a boolean, and the filters may be left out. */
  list: defineOperation({
    kind: "query",
    input: listBatchesInput.optional(),
    output: batchListOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: async ({ tx, input }) => ({ batches: await listBatches(tx, input ?? {}) }),
  }),

  /** REST's list (GET /api/exam/batches): the same domain function, its filters from the query string. */
  listByQuery: defineOperation({
    kind: "query",
    input: listBatchesQuery,
    output: batchListOutput,
    transaction: "as-user",
    role: "signed-in",
    trpc: false,
    handler: async ({ tx, input }) => ({ batches: await listBatches(tx, input) }),
    rest: {
      method: "GET",
      path: "/api/exam/batches",
      operationId: "listBatches",
      tags,
      summary: "Batches visible to the caller, newest first",
      reply: "`{batches}`",
      errors: { 400: invalid },
    },
  }),

  /** The batches screen: each batch with its template title, class name and progress counts. */
  overview: defineOperation({
    kind: "query",
    input: listBatchesInput.optional(),
    output: batchOverviewOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, input }) => listBatchOverview(tx, input ?? {}),
  }),

  /** Anonymous marking on or off (owner only). */
  setAnonymous: defineOperation({
    kind: "mutation",
    input: setAnonymousInput,
    output: batchOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => setBatchAnonymous(tx, caller.id, input),
    rest: {
      method: "PATCH",
      path: "/api/exam/batches/{batch_id}",
      operationId: "updateBatch",
      tags,
      summary:
        "Change the batch's settings (owner only): `anonymous` turns anonymous marking on or off (reads of the batch then name each script `Script N`, never its student). An archived or signed-off batch is 409.",
      reply: "The batch",
      errors: { 400: invalid, 403: notOwner, 404: notVisible, 409: "The batch is archived or signed off" },
    },
  }),

  archive: defineOperation({
    kind: "mutation",
    input: batchIdInput,
    output: batchOutput,
    transaction: "as-user",
    role: "staff",
    handler: ({ tx, caller, input }) => archiveBatch(tx, caller.id, input.batch_id),
    rest: {
      method: "POST",
      path: "/api/exam/batches/{batch_id}/archive",
      operationId: "archiveBatch",
      tags,
      summary: "Archive the batch (owner only; idempotent). An archived batch refuses scans and marks (409).",
      reply: "The archived batch",
      errors: { 403: notOwner, 404: notVisible },
    },
  }),

  queue: defineOperation({
    kind: "query",
    input: batchIdInput,
    output: queueOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, input }) => getQueue(tx, input.batch_id),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/queue",
      operationId: "getQueue",
      tags,
      summary: "Submissions with mark_entry_count, and progress",
      reply: "The marking queue",
      errors: { 404: notVisible },
    },
  }),

  /** tRPC's results: reveal_names (a boolean) gives the names of an anonymous batch to its owner (403 for anyone else). */
  results: defineOperation({
    kind: "query",
    input: resultsInput,
    output: resultsOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => getResults(tx, caller.id, input),
  }),

  /** REST's results (GET …/results): the same domain function, reveal_names from the query string. */
  resultsByQuery: defineOperation({
    kind: "query",
    input: resultsQueryInput,
    output: resultsOutput,
    transaction: "as-user",
    role: "signed-in",
    trpc: false,
    handler: ({ tx, caller, input }) => getResults(tx, caller.id, input),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/results",
      operationId: "getResults",
      tags,
      summary:
        "Leaf questions in order and one result per submission (absent ones included); an anonymous batch's names only for its owner with reveal_names=true",
      reply: "The results",
      errors: { 400: invalid, 403: revealRefused, 404: notVisible },
    },
  }),

  /** The contract's CSV of the results (REST only: a file). */
  resultsCsv: defineOperation({
    kind: "query",
    input: resultsCsvInput,
    // The results are read in a transaction of their own as the caller, and rendered after it.
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input }) => resultsCsvDownload(db, caller.id, input),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/csv",
      operationId: "getResultsCsv",
      tags,
      summary: "The results as CSV: student_name, student_id, status (as the screens word it), one column per question label, total",
      file: fileReply("text/csv", "attachment batch-<id>.csv, or `<title> - <yyyy-mm-dd>.csv` with name=title (RFC 4180, UTF-8)"),
      respond: ({ csv, fileName }) => attachment(csv, "text/csv; charset=utf-8", fileName),
      errors: { 400: invalid, 403: revealRefused, 404: notVisible },
    },
  }),

  /** The teacher's export as CSV (REST only: a file). */
  exportCsv: defineOperation({
    kind: "query",
    input: resultsExportInput,
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input }) => exportCsvDownload(db, caller.id, { batch_id: input.batch_id, reveal_names: input.reveal_names }),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/export/csv",
      operationId: "exportResultsCsv",
      tags,
      summary: `The teacher's results export for a spreadsheet or a school's system, as CSV: ${exportColumns}. Names as in the results (hidden in an anonymous batch unless its owner reveals them).`,
      file: fileReply("text/csv", "attachment `<title> - <yyyy-mm-dd>.csv`: UTF-8 with a byte-order mark, CRLF, RFC 4180"),
      respond: ({ csv, fileName }) => attachment(csv, "text/csv; charset=utf-8", fileName),
      errors: { 400: invalid, 403: revealRefused, 404: notVisible },
    },
  }),

  /** The teacher's export as an Excel workbook (REST only: a file). */
  exportXlsx: defineOperation({
    kind: "query",
    input: resultsExportInput,
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input }) => exportXlsxDownload(db, caller.id, { batch_id: input.batch_id, reveal_names: input.reveal_names }),
    rest: {
      method: "GET",
      path: "/api/exam/batches/{batch_id}/export/xlsx",
      operationId: "exportResultsXlsx",
      tags,
      summary: `The teacher's results export as an Excel workbook (the same table as /export/csv; numbers as numbers, the percentage formatted, the header row frozen): ${exportColumns}.`,
      file: fileReply(XLSX_CONTENT_TYPE, "attachment `<title> - <yyyy-mm-dd>.xlsx`", { type: "string", contentMediaType: XLSX_CONTENT_TYPE }),
      respond: ({ bytes, fileName }) => attachment(bytes.buffer as ArrayBuffer, XLSX_CONTENT_TYPE, fileName),
      errors: { 400: invalid, 403: revealRefused, 404: notVisible },
    },
  }),
};
