import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import type { AuthenticatedUser } from "../auth/authenticate";
import type { Db, Tx } from "../db/client";
import { asUser } from "../db/rls";
import { toTRPCError } from "../errors";

export interface Context {
  db: Db;
  user: AuthenticatedUser | null;
}

const t = initTRPC.context<Context>().create({ transformer: superjson });

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;

/** Domain errors (AppError) become the matching tRPC code; unknown errors a generic 500. */
const mapErrors = t.middleware(async ({ next }) => {
  const result = await next();
  if (!result.ok) throw toTRPCError(result.error);
  return result;
});

export const publicProcedure = t.procedure.use(mapErrors);

/** A signed-in caller; `ctx.asUser(fn)` runs `fn` in a transaction under row-level security. */
export const userProcedure = publicProcedure.use(({ ctx, next }) => {
  const { user, db } = ctx;
  if (!user) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first" });
  return next({
    ctx: { user, asUser: <T>(fn: (tx: Tx) => Promise<T>) => asUser(db, user.id, fn) },
  });
});
