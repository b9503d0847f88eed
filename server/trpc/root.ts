import { createCallerFactory, router } from "./init";
import { meRouter } from "./routers/me";
import { tokensRouter } from "./routers/tokens";

export const appRouter = router({
  me: meRouter,
  tokens: tokensRouter,
});

export type AppRouter = typeof appRouter;

/** Server-side calls with a ready context: `createCaller(await createContext({ headers }))`. */
export const createCaller = createCallerFactory(appRouter);
