import { operationCatalogue } from "../operation-catalogue";
import { createCallerFactory, router } from "./init";
import { operationsRouter, proceduresOf } from "./operations";

const { apiKeys: speechApiKeys, ...speech } = operationCatalogue.speech;
const exam = operationCatalogue.exam;

export const appRouter = router({
  me: operationsRouter(operationCatalogue.me),
  // Exam's sub-routers, each a set of the catalogue's `exam` entry.
  exam: router({
    catalogue: operationsRouter(exam.catalogue),
    templates: operationsRouter(exam.templates),
    questions: operationsRouter(exam.questions),
    rubric: operationsRouter(exam.rubric),
    comments: operationsRouter(exam.comments),
    markers: operationsRouter(exam.markers),
    claims: operationsRouter(exam.claims),
    moderation: operationsRouter(exam.moderation),
    batches: operationsRouter(exam.batches),
    submissions: operationsRouter(exam.submissions),
    marks: operationsRouter(exam.marks),
    intake: operationsRouter(exam.intake),
    reviews: operationsRouter(exam.reviews),
    release: operationsRouter(exam.release),
    annotations: operationsRouter(exam.annotations),
    answers: operationsRouter(exam.answers),
  }),
  graph: operationsRouter(operationCatalogue.graph),
  tokens: operationsRouter(operationCatalogue.tokens),
  timetables: operationsRouter(operationCatalogue.timetables),
  classes: operationsRouter(operationCatalogue.classes),
  snapshots: operationsRouter(operationCatalogue.snapshots),
  speech: router({ ...proceduresOf(speech), apiKeys: operationsRouter(speechApiKeys) }),
  people: operationsRouter(operationCatalogue.people),
  rosterImport: operationsRouter(operationCatalogue.rosterImport),
  student: router({ scripts: operationsRouter(operationCatalogue.student.scripts), reviews: operationsRouter(operationCatalogue.student.reviews) }),
});

export type AppRouter = typeof appRouter;

/** Server-side calls with a ready context: `createCaller(await createContext({ headers }))`. */
export const createCaller = createCallerFactory(appRouter);
