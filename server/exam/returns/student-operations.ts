import { fileReply } from "../../http/route";
import { inlineScanResponse } from "../submission-operations";
import { defineOperation } from "../../operations/define";
import { myMarkedPdf } from "./returns-downloads";
import { pdfAttachment } from "./returns-operations";
import { getMyScript, listMyScripts, markedScriptOutput, myScriptsOutput, openMyScriptScan, scriptIdInput } from "./student-scripts";

/**
 * The student's "My work" (`student.scripts.<name>`; issue 35, item 3): their released scripts. Anyone
 * signed in may ask; only a student with a released script finds one (member of staff: an empty list,
 * 404 for any id). Another student's script, an unreleased, withdrawn or other school's one: 404, alike.
 */
// Under exam's tag in the document: marked work is exam's, read from the student's side.
const tags = ["exam"];
const notMine = "Not found: no such script, not the caller's, not released (or withdrawn), or of another school";

export const studentScriptOperations = {
  list: defineOperation({
    kind: "query",
    output: myScriptsOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx }) => listMyScripts(tx),
    rest: {
      method: "GET",
      path: "/api/me/scripts",
      operationId: "listMyScripts",
      tags,
      summary: "The caller's marked scripts released to them, newest release first, with their totals",
      reply: "The released scripts",
      errors: {},
    },
  }),

  get: defineOperation({
    kind: "query",
    input: scriptIdInput,
    output: markedScriptOutput,
    // The script is read under the caller's row-level security; its specification points are then named from the curriculum graph.
    transaction: "database",
    role: "signed-in",
    handler: ({ db, caller, input }) => getMyScript(db, caller.id, input.submission_id),
    rest: {
      method: "GET",
      path: "/api/me/scripts/{submission_id}",
      operationId: "getMyScript",
      tags,
      summary: "One released script of the caller: its pages and annotations, the marks per question with comments and rubric items, the total and what to revise",
      reply: "The marked script",
      errors: { 404: notMine },
    },
  }),

  scan: defineOperation({
    kind: "query",
    input: scriptIdInput,
    // openMyScriptScan finds the script in a transaction of its own as the caller, then reads the object store after it.
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input }) => openMyScriptScan(db, caller.id, input.submission_id),
    rest: {
      method: "GET",
      path: "/api/me/scripts/{submission_id}/scan",
      operationId: "downloadMyScriptScan",
      tags,
      summary: "The scanned PDF of one released script of the caller",
      file: fileReply("application/pdf", "The PDF", { type: "string", contentMediaType: "application/pdf" }),
      respond: inlineScanResponse,
      errors: { 404: `${notMine}; or no scan`, 502: "Scan storage failed" },
    },
  }),

  pdf: defineOperation({
    kind: "query",
    input: scriptIdInput,
    // The script and its scan are read under the caller's row-level security, then drawn in the marked-PDF worker.
    transaction: "database",
    role: "signed-in",
    trpc: false,
    handler: ({ db, caller, input }) => myMarkedPdf(db, caller.id, input.submission_id),
    rest: {
      method: "GET",
      path: "/api/me/scripts/{submission_id}/marked-pdf",
      operationId: "downloadMyMarkedPdf",
      tags,
      summary: "One released script of the caller as a marked PDF: a cover sheet (total, mark and comment per question, what to revise), then the scan with the marking drawn on it",
      file: fileReply("application/pdf", "attachment `<paper title> - <batch title>.pdf`", { type: "string", contentMediaType: "application/pdf" }),
      respond: pdfAttachment,
      errors: { 400: "The PDF cannot be made: the script breaks one of its limits or its scan is damaged", 404: `${notMine}; or no scan`, 502: "Scan storage failed", 503: "Making the PDF stopped or took too long; try again" },
    },
  }),
};
