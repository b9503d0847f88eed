import { decodeJwt } from "jose";
import { MISSING_BEARER_TOKEN, authenticateBearer } from "../auth/authenticate";
import { bearerToken } from "../auth/tokens";
import type { Db } from "../db/client";
import { AppError } from "../errors";

/**
 * Snapshot and sync-token routes follow the contract's snapshot rule 6
 * (docs/spec/classroom-api.md "Canvas snapshot read rules" 6): a request without the raw access
 * token, or whose token carries no user id, answers 403. Other bad tokens (expired, bad signature) are 401.
 * The route calls it after validating its own input, so that rule 1 (the path) keeps its place before rule 6.
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
