import { authenticateBearer } from "../auth/authenticate";
import { authenticateSessionCookie } from "../auth/session";
import { getDatabase } from "../db/client";
import { toTRPCError } from "../errors";
import type { Context } from "./init";

/**
 * Who is calling: a Bearer token (external tools, tests) or else the next-auth session cookie (the web
 * app). A request that sends an Authorization header is judged by it alone: a bad token is UNAUTHORIZED
 * even when a valid cookie rides along, so a tool never acts as whoever is signed in to the browser.
 */
export async function createContext({ headers }: { headers: Headers }): Promise<Context> {
  const { db } = await getDatabase();
  try {
    const user = headers.has("authorization")
      ? await authenticateBearer(db, headers.get("authorization"))
      : await authenticateSessionCookie(db, headers);
    return { db, user };
  } catch (error) {
    throw toTRPCError(error);
  }
}
