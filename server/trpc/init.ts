import { initTRPC, TRPCError } from "@trpc/server";
import superjson from "superjson";
import type { AuthenticatedUser } from "../auth/authenticated-user";
import { CHOOSE_PASSWORD_FIRST } from "../auth/authenticate";
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

const publicProcedure = t.procedure.use(mapErrors);

/**
 * A signed-in caller, even one who still holds a temporary password: only for choosing their own.
 * `ctx.asUser(fn)` runs `fn` in a transaction under row-level security.
 */
export const passwordChoosingProcedure = publicProcedure.use(({ ctx, next }) => {
  const { user, db } = ctx;
  if (!user) throw new TRPCError({ code: "UNAUTHORIZED", message: "Sign in first" });
  return next({
    ctx: { user, asUser: <T>(fn: (tx: Tx) => Promise<T>) => asUser(db, user.id, fn) },
  });
});

/** A signed-in caller who has chosen their own password (a temporary one opens nothing else). */
export const userProcedure = passwordChoosingProcedure.use(({ ctx, next }) => {
  if (ctx.user.mustChoosePassword) throw new TRPCError({ code: "FORBIDDEN", message: CHOOSE_PASSWORD_FIRST });
  return next();
});
