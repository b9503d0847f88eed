import { z } from "zod";
import { asUser } from "../../db/rls";
import { queryBoolean } from "../../../lib/rules/input-rules";
import { defineRoute, errorMeaning, fileReply, jsonBody, jsonReply, replyWith } from "../../http/route";
import {
  archiveBatch,
  batchIdInput,
  batchListOutput,
  batchOutput,
  batchSettingsBody,
  createBatch,
  createBatchInput,
  createdBatchOutput,
  getQueue,
  getResults,
  listBatches,
  listBatchesInput,
  queueOutput,
  resultsOutput,
  setBatchAnonymous,
} from "../batches";
import { attachmentDisposition, renderResultsCsv, resultsCsvFileName, resultsCsvQuery, revealNamesQuery, titledCsvFileName, titledFileName } from "../results-csv";
import { getResultsExport, renderExportCsv, renderExportXlsx, resultsExportQuery } from "../results-export";

/** Batches: one sitting of a template by a class, its marking queue and its results. */

const tags = ["exam"];
const { invalid, notVisible } = errorMeaning;

export const createBatchRoute = defineRoute({
  method: "POST",
  path: "/api/exam/batches",
  operationId: "createBatch",
  tags,
  summary: "Create a batch; each active enrollee of class_id becomes an absent submission",
  auth: "bearer",
  body: jsonBody(createBatchInput),
  replies: { 201: jsonReply(createdBatchOutput, "The batch with submission_count") },
  errors: { 400: invalid, 404: notVisible, 409: "The template is archived", 500: "The batch could not be created" },
  handler: async ({ db, user, body }) => replyWith(201, await createBatch(db, user.id, body)),
});

export const listBatchesRoute = defineRoute({
  method: "GET",
  path: "/api/exam/batches",
  operationId: "listBatches",
  tags,
  summary: "Batches visible to the caller, newest first",
  auth: "bearer",
  query: listBatchesInput.extend({ include_archived: queryBoolean.default(false).meta({ description: "Include archived batches" }) }),
  replies: { 200: jsonReply(batchListOutput, "`{batches}`") },
  errors: { 400: invalid },
  handler: async ({ db, user, query }) => {
    const batches = await asUser(db, user.id, (tx) => listBatches(tx, query));
    return { batches };
  },
});

export const archiveBatchRoute = defineRoute({
  method: "POST",
  path: "/api/exam/batches/{batch_id}/archive",
  operationId: "archiveBatch",
  tags,
  summary: "Archive the batch (owner only; idempotent). An archived batch refuses scans and marks (409).",
  auth: "bearer",
  params: batchIdInput,
  replies: { 200: jsonReply(batchOutput, "The archived batch") },
  errors: { 403: "Not the owner", 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => archiveBatch(tx, user.id, params.batch_id)),
});

export const updateBatchRoute = defineRoute({
  method: "PATCH",
  path: "/api/exam/batches/{batch_id}",
  operationId: "updateBatch",
  tags,
  summary:
    "Change the batch's settings (owner only): `anonymous` turns anonymous marking on or off (reads of the batch then name each script `Script N`, never its student). An archived or signed-off batch is 409.",
  auth: "bearer",
  params: batchIdInput,
  body: jsonBody(batchSettingsBody),
  replies: { 200: jsonReply(batchOutput, "The batch") },
  errors: { 400: invalid, 403: "Not the owner", 404: notVisible, 409: "The batch is archived or signed off" },
  handler: ({ db, user, params, body }) => asUser(db, user.id, (tx) => setBatchAnonymous(tx, user.id, { batch_id: params.batch_id, ...body })),
});

export const getQueueRoute = defineRoute({
  method: "GET",
  path: "/api/exam/batches/{batch_id}/queue",
  operationId: "getQueue",
  tags,
  summary: "Submissions with mark_entry_count, and progress",
  auth: "bearer",
  params: batchIdInput,
  replies: { 200: jsonReply(queueOutput, "The marking queue") },
  errors: { 404: notVisible },
  handler: ({ db, user, params }) => asUser(db, user.id, (tx) => getQueue(tx, params.batch_id)),
});

export const getResultsRoute = defineRoute({
  method: "GET",
  path: "/api/exam/batches/{batch_id}/results",
  operationId: "getResults",
  tags,
  summary: "Leaf questions in order and one result per submission (absent ones included); an anonymous batch's names only for its owner with reveal_names=true",
  auth: "bearer",
  params: batchIdInput,
  query: z.object({ reveal_names: revealNamesQuery }),
  replies: { 200: jsonReply(resultsOutput, "The results") },
  errors: { 400: invalid, 403: "reveal_names asked by someone other than the owner of an anonymous batch", 404: notVisible },
  handler: ({ db, user, params, query }) => asUser(db, user.id, (tx) => getResults(tx, user.id, { batch_id: params.batch_id, reveal_names: query.reveal_names })),
});

export const getResultsCsvRoute = defineRoute({
  method: "GET",
  path: "/api/exam/batches/{batch_id}/csv",
  operationId: "getResultsCsv",
  tags,
  summary: "The results as CSV: student_name, student_id, status (as the screens word it), one column per question label, total",
  auth: "bearer",
  params: batchIdInput,
  query: resultsCsvQuery,
  replies: { 200: fileReply("text/csv", "attachment batch-<id>.csv, or `<title> - <yyyy-mm-dd>.csv` with name=title (RFC 4180, UTF-8)") },
  errors: { 400: invalid, 403: "reveal_names asked by someone other than the owner of an anonymous batch", 404: notVisible },
  handler: async ({ db, user, params, query }) => {
    const results = await asUser(db, user.id, (tx) => getResults(tx, user.id, { batch_id: params.batch_id, reveal_names: query.reveal_names }));
    const fileName = query.name === "title" ? titledCsvFileName(results.batch) : resultsCsvFileName(params.batch_id);
    return new Response(renderResultsCsv(results), {
      headers: {
        "content-type": "text/csv; charset=utf-8",
        "content-disposition": attachmentDisposition(fileName),
        "cache-control": "no-store",
      },
    });
  },
});

const exportErrors = { 400: invalid, 403: "reveal_names asked by someone other than the owner of an anonymous batch", 404: notVisible } as const;
const exportColumns =
  "one row per student: (Script, for an anonymous batch), School ID (the SIS id or UPN of the roster import), Surname, First name, Class, State (marked, incomplete, not marked, absent, no scan yet, needs a student), Total and Percentage (blank unless marked in full), Max, one column per question label, Comments";

export const exportResultsCsvRoute = defineRoute({
  method: "GET",
  path: "/api/exam/batches/{batch_id}/export/csv",
  operationId: "exportResultsCsv",
  tags,
  summary: `The teacher's results export for a spreadsheet or a school's system, as CSV: ${exportColumns}. Names as in the results (hidden in an anonymous batch unless its owner reveals them).`,
  auth: "bearer",
  params: batchIdInput,
  query: resultsExportQuery,
  replies: { 200: fileReply("text/csv", "attachment `<title> - <yyyy-mm-dd>.csv`: UTF-8 with a byte-order mark, CRLF, RFC 4180") },
  errors: exportErrors,
  handler: async ({ db, user, params, query }) => {
    const table = await asUser(db, user.id, (tx) => getResultsExport(tx, user.id, { batch_id: params.batch_id, reveal_names: query.reveal_names }));
    return new Response(renderExportCsv(table), {
      headers: { "content-type": "text/csv; charset=utf-8", "content-disposition": attachmentDisposition(titledFileName(table.batch, "csv")), "cache-control": "no-store" },
    });
  },
});

const XLSX_CONTENT_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

export const exportResultsXlsxRoute = defineRoute({
  method: "GET",
  path: "/api/exam/batches/{batch_id}/export/xlsx",
  operationId: "exportResultsXlsx",
  tags,
  summary: `The teacher's results export as an Excel workbook (the same table as /export/csv; numbers as numbers, the percentage formatted, the header row frozen): ${exportColumns}.`,
  auth: "bearer",
  params: batchIdInput,
  query: resultsExportQuery,
  replies: { 200: fileReply(XLSX_CONTENT_TYPE, "attachment `<title> - <yyyy-mm-dd>.xlsx`", { type: "string", contentMediaType: XLSX_CONTENT_TYPE }) },
  errors: exportErrors,
  handler: async ({ db, user, params, query }) => {
    const table = await asUser(db, user.id, (tx) => getResultsExport(tx, user.id, { batch_id: params.batch_id, reveal_names: query.reveal_names }));
    const bytes = await renderExportXlsx(table);
    return new Response(bytes.buffer as ArrayBuffer, {
      headers: { "content-type": XLSX_CONTENT_TYPE, "content-disposition": attachmentDisposition(titledFileName(table.batch, "xlsx")), "cache-control": "no-store" },
    });
  },
});

export const batchRoutes = [
  createBatchRoute,
  listBatchesRoute,
  updateBatchRoute,
  archiveBatchRoute,
  getQueueRoute,
  getResultsRoute,
  getResultsCsvRoute,
  exportResultsCsvRoute,
  exportResultsXlsxRoute,
];
