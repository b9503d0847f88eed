import { batchIdInput } from "../../exam/batches";
import { userProcedure } from "../init";
import { printPreview, printPreviewOutput } from "../../exam/intake/print-scripts";

/**
 * The print dialog's tRPC procedures (exam.intake.*). The PDF itself is downloaded through REST
 * (POST /api/exam/batches/{id}/printed-scripts): a file is not a tRPC reply.
 */
export const printProcedures = {
  printPreview: userProcedure
    .input(batchIdInput)
    .output(printPreviewOutput)
    .query(({ ctx, input }) => printPreview(ctx.db, ctx.user.id, input.batch_id)),
};
