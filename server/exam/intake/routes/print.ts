import { batchIdInput } from "../../batches";
import { defineRoute, errorMeaning, fileReply, jsonBody } from "../../../http/route";
import { MAX_SCRIPTS_PER_PRINT, printScripts, printScriptsBody, printedScriptsResponse } from "../print-scripts";

/** "Print scripts": the batch's scripts as one PDF, every page stamped with its QR code. */

const { invalid, notVisible } = errorMeaning;

export const printScriptsRoute = defineRoute({
  method: "POST",
  path: "/api/exam/batches/{batch_id}/printed-scripts",
  operationId: "printScripts",
  tags: ["exam"],
  summary: "Print the batch's scripts: one PDF, a script per student of the roster (or of submission_ids) plus spare_copies, each page stamped with its QR code",
  description:
    "Owner only. A student keeps the script number of their first print, so a reprint carries the same codes; spare copies take new numbers. " +
    `At most ${MAX_SCRIPTS_PER_PRINT} scripts per print.`,
  auth: "bearer",
  params: batchIdInput,
  body: jsonBody(printScriptsBody, { example: '{"spare_copies": 2}' }),
  replies: { 200: fileReply("application/pdf", "attachment `<batch title> - scripts.pdf`: every script's pages, stamped", { type: "string", contentMediaType: "application/pdf" }) },
  errors: {
    400: invalid,
    403: "Not the batch's owner",
    404: notVisible,
    409: "The batch is archived or signed off, or its template has no paper PDF",
    502: "The paper could not be read from storage",
  },
  handler: async ({ db, user, params, body }) => printedScriptsResponse(await printScripts(db, user.id, params.batch_id, body)),
});

export const printRoutes = [printScriptsRoute];
