import { decodeRosterFiles, rosterImportInput, runRosterImport } from "../../identity/roster-import";
import { rosterImportOutput } from "../../identity/roster-plan";
import { router, userProcedure } from "../init";

/** Roster import for a school's admins: preview (the plan) and apply (the plan, written). */
export const rosterImportRouter = router({
  preview: userProcedure
    .input(rosterImportInput)
    .output(rosterImportOutput)
    .mutation(({ ctx, input }) => runRosterImport(ctx.db, ctx.user.id, decodeRosterFiles(input.files), input.mapping, "preview")),

  // "apply" is a word tRPC reserves (a function's own method), so the writing procedure is "commit".
  commit: userProcedure
    .input(rosterImportInput)
    .output(rosterImportOutput)
    .mutation(({ ctx, input }) => runRosterImport(ctx.db, ctx.user.id, decodeRosterFiles(input.files), input.mapping, "apply")),
});
