import type { AuthenticatedUser } from "../auth/authenticate";
import { authenticateBearer } from "../auth/authenticate";
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

/**
 * A Bearer token (external tools) or else the next-auth session cookie (the web app posting a form, as
 * the scan upload does). As in the tRPC context, a request with an Authorization header is judged by it
 * alone, so a tool never acts as whoever is signed in to the browser.
 */
async function authenticateRestCaller(db: Db, headers: Headers): Promise<AuthenticatedUser> {
  if (headers.has("authorization") || !headers.has("cookie")) return authenticateBearer(db, headers.get("authorization"));
  // Loaded on first use: bearer-only callers (external tools, the in-process benchmark run by tsx, which
  // cannot load next-auth's CommonJS default export) never need next-auth.
  const { authenticateSessionCookie } = await import("../auth/session");
  const user = await authenticateSessionCookie(db, headers);
  if (!user) throw new AppError("unauthenticated", "Sign in first (no valid session cookie or bearer token)");
  return user;
}
