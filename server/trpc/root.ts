import { operationCatalogue } from "../operation-catalogue";
import { createCallerFactory, router } from "./init";
import { operationsRouter, proceduresOf } from "./operations";
import { handWrittenExamRouters } from "./routers/exam";

const { apiKeys: speechApiKeys, ...speech } = operationCatalogue.speech;
const exam = operationCatalogue.exam;

export const appRouter = router({
  me: operationsRouter(operationCatalogue.me),
  // Exam's sub-routers on the catalogue beside those still hand-written (server/trpc/routers/exam.ts).
  exam: router({
    catalogue: operationsRouter(exam.catalogue),
    templates: operationsRouter(exam.templates),
    questions: operationsRouter(exam.questions),
    rubric: operationsRouter(exam.rubric),
    comments: operationsRouter(exam.comments),
    markers: operationsRouter(exam.markers),
    claims: operationsRouter(exam.claims),
    moderation: operationsRouter(exam.moderation),
    annotations: operationsRouter(exam.annotations),
    ...handWrittenExamRouters,
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
