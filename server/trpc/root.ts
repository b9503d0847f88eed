import { createCallerFactory, router } from "./init";
import { examRouter } from "./routers/exam";
import { graphRouter } from "./routers/graph";
import { meRouter } from "./routers/me";
import { tokensRouter } from "./routers/tokens";
import { timetablesRouter } from "./routers/timetables";
import { classesRouter } from "./routers/classes";
import { snapshotsRouter } from "./routers/snapshots";
import { speechRouter } from "./routers/speech";
import { peopleRouter } from "./routers/people";
import { rosterImportRouter } from "./routers/roster-import";

export const appRouter = router({
  me: meRouter,
  exam: examRouter,
  graph: graphRouter,
  tokens: tokensRouter,
  timetables: timetablesRouter,
  classes: classesRouter,
  snapshots: snapshotsRouter,
  speech: speechRouter,
  people: peopleRouter,
  rosterImport: rosterImportRouter,
});

export type AppRouter = typeof appRouter;

/** Server-side calls with a ready context: `createCaller(await createContext({ headers }))`. */
export const createCaller = createCallerFactory(appRouter);
