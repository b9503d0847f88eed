import { operationCatalogue } from "../operation-catalogue";
import { createCallerFactory, router } from "./init";
import { operationsRouter, proceduresOf } from "./operations";
import { examRouter } from "./routers/exam";

const { apiKeys: speechApiKeys, ...speech } = operationCatalogue.speech;

export const appRouter = router({
  me: operationsRouter(operationCatalogue.me),
  exam: examRouter,
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
