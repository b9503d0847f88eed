import { defineOperation } from "../operations/define";
import { catalogueListOutput, listCataloguePapers } from "./catalogue";

/** The exam boards' papers every school shares (`exam.catalogue.<name>` over tRPC only). */
export const examCatalogueOperations = {
  list: defineOperation({
    kind: "query",
    output: catalogueListOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: async ({ tx }) => ({ papers: await listCataloguePapers(tx) }),
  }),
};
