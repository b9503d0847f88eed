import type { AuthenticatedUser } from "../auth/authenticate";
import { MISSING_BEARER_TOKEN, authenticateRequest } from "../auth/authenticate";
import type { Db } from "../db/client";
import { getDatabase } from "../db/client";
import { AppError, detailResponse } from "../errors";

export interface RestContext<Params> {
  request: Request;
  url: URL;
  params: Params;
  user: AuthenticatedUser;
  db: Db;
}

/**
 * Wraps a classroom/exam REST handler: bearer authentication, the `{detail}` error dialect, and JSON
 * replies. Handlers stay thin: parse, call one domain function, shape the reply.
 */
export function restRoute<Params = Record<string, never>>(
  handler: (context: RestContext<Params>) => Promise<Response | object>,
) {
  return async (request: Request, route?: { params: Promise<Params> }): Promise<Response> => {
    try {
      const { db } = await getDatabase();
      const user = await authenticateRestCaller(db, request.headers);
      const params = (route ? await route.params : {}) as Params;
      const result = await handler({ request, url: new URL(request.url), params, user, db });
      return result instanceof Response ? result : Response.json(result);
    } catch (error) {
      return detailResponse(error);
    }
  };
}

/** REST has no public routes: a caller without a valid credential is told which one is missing. */
async function authenticateRestCaller(db: Db, headers: Headers): Promise<AuthenticatedUser> {
  const user = await authenticateRequest(db, headers);
  if (user) return user;
  throw new AppError(
    "unauthenticated",
    headers.has("cookie") ? "Sign in first (no valid session cookie or bearer token)" : MISSING_BEARER_TOKEN,
  );
}
