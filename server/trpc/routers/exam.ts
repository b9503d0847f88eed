import { batchIdInput } from "../../exam/batches";
import { movePage, movePageInput, movePageOutput } from "../../exam/intake/move-page";
import { printProcedures } from "./intake-print";
import { intakeStatus, intakeStatusOutput, listScanPages, scanPageListOutput } from "../../exam/intake/status";
import { router, userProcedure } from "../init";

/**
 * The exam-marking API for the web app: the same domain functions and schemas as the REST paths under
 * /api/exam. Scan upload is REST only (multipart): the UI posts the form to
 * /api/exam/batches/{id}/scans with its session cookie.
 *
 * The sub-routers not yet on the operation catalogue; server/trpc/root.ts builds `exam` from these and
 * the catalogue's `exam` sets (catalogue, templates, questions, rubric, comments, markers, claims, moderation, batches, submissions, marks).
 */
export const handWrittenExamRouters = {
  /**
   * Class-set intake. Over REST only: the printed scripts' PDF (POST /api/exam/batches/{id}/printed-scripts)
   * and pile uploads (multipart, POST /api/exam/batches/{id}/piles).
   */
  intake: router({
    ...printProcedures,
    status: userProcedure
      .input(batchIdInput)
      .output(intakeStatusOutput)
      .query(({ ctx, input }) => ctx.asUser((tx) => intakeStatus(tx, input.batch_id))),
    pages: userProcedure
      .input(batchIdInput)
      .output(scanPageListOutput)
      .query(({ ctx, input }) => ctx.asUser((tx) => listScanPages(tx, input.batch_id))),
    movePage: userProcedure
      .input(movePageInput)
      .output(movePageOutput)
      .mutation(({ ctx, input }) => ctx.asUser((tx) => movePage(tx, ctx.user.id, input))),
  }),
};
