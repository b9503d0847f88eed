import { fileReply } from "../../http/route";
import { defineOperation } from "../../operations/define";
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
      respond: (scan) =>
        new Response(scan.body, {
          headers: {
            "content-type": scan.contentType,
            "content-length": String(scan.byteSize),
            "content-disposition": "inline",
            // A release can be withdrawn: the browser keeps the scan briefly only.
            "cache-control": "private, max-age=60",
            "x-content-type-options": "nosniff",
          },
        }),
      errors: { 404: `${notMine}; or no scan`, 502: "Scan storage failed" },
    },
  }),
};
