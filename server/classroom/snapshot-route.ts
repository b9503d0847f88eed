import { decodeJwt } from "jose";
import { MISSING_BEARER_TOKEN, authenticateBearer } from "../auth/authenticate";
import { bearerToken } from "../auth/tokens";
import type { Db } from "../db/client";
import { getDatabase } from "../db/client";
import { AppError, detailResponse } from "../errors";

/**
 * Snapshot and sync-token routes follow the contract's snapshot rule 6: a request without the raw access
 * token, or whose token carries no user id, answers 403. Other bad tokens (expired, bad signature) are 401.
 * The handler validates its own input first, so that rule 1 (the path) keeps its place before rule 6.
 */
export async function authenticateCanvasCaller(db: Db, request: Request): Promise<{ id: string }> {
  const authorization = request.headers.get("authorization");
  const token = bearerToken(authorization);
  if (!token) throw new AppError("forbidden", MISSING_BEARER_TOKEN);
  try {
    return await authenticateBearer(db, authorization);
  } catch (error) {
    if (error instanceof AppError && error.code === "unauthenticated" && !tokenNamesUser(token)) {
      throw new AppError("forbidden", "The token carries no user id");
    }
    throw error;
  }
}

function tokenNamesUser(token: string): boolean {
  try {
    return typeof decodeJwt(token).sub === "string";
  } catch {
    return true; // not a JWT at all: an invalid token (401), not a token without a user id
  }
}

export interface CanvasRouteContext {
  request: Request;
  url: URL;
  db: Db;
  /** Authenticates the caller (rule 6); call it after validating the request's own input. */
  authenticate(): Promise<{ id: string }>;
}

/** Wraps a canvas route: the `{detail}` error dialect and JSON replies. */
export function canvasRoute(handler: (context: CanvasRouteContext) => Promise<Response | object>) {
  return async (request: Request): Promise<Response> => {
    try {
      const { db } = await getDatabase();
      const result = await handler({ request, url: new URL(request.url), db, authenticate: () => authenticateCanvasCaller(db, request) });
      return result instanceof Response ? result : Response.json(result);
    } catch (error) {
      return detailResponse(error);
    }
  };
}
