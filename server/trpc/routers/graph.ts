import { graphChildrenInput, graphChildrenOutput, listGraphChildren } from "../../graph/children";
import { graphSyncInput, graphSyncOutput, syncTemplateGraph } from "../../graph/projection";
import { router, userProcedure } from "../init";

/** The exam knowledge graph: projecting a template, browsing a node's children. */
export const graphRouter = router({
  syncTemplate: userProcedure
    .input(graphSyncInput)
    .output(graphSyncOutput)
    .mutation(({ ctx, input }) => syncTemplateGraph(ctx.db, ctx.user.id, input.templateId)),

  children: userProcedure
    .input(graphChildrenInput)
    .output(graphChildrenOutput)
    .query(({ ctx, input }) => listGraphChildren(ctx.db, ctx.user.id, input)),
});
