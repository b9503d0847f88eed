import { operationCatalogue } from "../operation-catalogue";
import { createCallerFactory, router } from "./init";
import { operationsRouter, proceduresOf } from "./operations";
import { examRouters } from "./routers/exam";

const { apiKeys: speechApiKeys, ...speech } = operationCatalogue.speech;

export const appRouter = router({
  me: operationsRouter(operationCatalogue.me),
  // The hand-written sub-routers of exam beside those of the catalogue (exam.markers, exam.claims, exam.moderation).
  exam: router({
    ...examRouters,
    markers: operationsRouter(operationCatalogue.exam.markers),
    claims: operationsRouter(operationCatalogue.exam.claims),
    moderation: operationsRouter(operationCatalogue.exam.moderation),
  }),
  graph: operationsRouter(operationCatalogue.graph),
  tokens: operationsRouter(operationCatalogue.tokens),
  timetables: operationsRouter(operationCatalogue.timetables),
  classes: operationsRouter(operationCatalogue.classes),
  snapshots: operationsRouter(operationCatalogue.snapshots),
  speech: router({ ...proceduresOf(speech), apiKeys: operationsRouter(speechApiKeys) }),
  people: operationsRouter(operationCatalogue.people),
  rosterImport: operationsRouter(operationCatalogue.rosterImport),
});

export type AppRouter = typeof appRouter;

/** Server-side calls with a ready context: `createCaller(await createContext({ headers }))`. */
export const createCaller = createCallerFactory(appRouter);
