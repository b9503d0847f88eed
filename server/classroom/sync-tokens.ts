import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { z } from "zod";
import { text } from "../../lib/rules/input-rules";
import { serverSecret } from "../auth/secret";
import type { Tx } from "../db/client";
import { env } from "../env";
import { AppError } from "../errors";
import { graphDatabaseNameInput, resolveSnapshotAccess } from "./snapshots";

/**
 * Tokens for the real-time sync service: HS256 JWTs signed with SYNC_TOKEN_SECRET (never AUTH_SECRET, so
 * the sync service can verify them without being able to mint user tokens), issued to a signed-in user
 * for one canvas room they may write (the snapshot write rules), living SYNC_TOKEN_TTL_SECONDS. A room is
 * a snapshot path in one graph database: the token names both (`room` and `db_name` claims), so a token
 * for `Lesson/x` in one school's database never opens `Lesson/x` of another.
 */

export const SYNC_TOKEN_AUDIENCE = "markbook-sync";
const SYNC_TOKEN_ISSUER = "markbook";
const SYNC_TOKEN_SCOPE = "canvas:write" as const;

/** SYNC_TOKEN_SECRET, or (embedded mode) one generated once and kept in DATA_DIR/secrets. */
export const syncTokenSecret = (): string => serverSecret("SYNC_TOKEN_SECRET");

const key = () => new TextEncoder().encode(syncTokenSecret());

/** Body of POST /sync/token: the room is a canvas snapshot path, with the graph database it lives in. */
export const issueSyncTokenInput = z.object({
  room: text(1024, "room is required").min(1, "room is required"),
  db_name: graphDatabaseNameInput,
});

export const syncTokenOutput = z.object({
  token: z.string(),
  token_type: z.literal("Bearer"),
  room: z.string(),
  db_name: z.string(),
  scope: z.literal(SYNC_TOKEN_SCOPE),
  expires_in: z.number().int(),
  expires_at: z.string(),
});

/** Signs a sync token; `ttlSeconds` defaults to SYNC_TOKEN_TTL_SECONDS (tests pass others). */
export async function signSyncToken(options: { userId: string; room: string; dbName: string; ttlSeconds?: number; now?: Date }) {
  const ttlSeconds = options.ttlSeconds ?? env().SYNC_TOKEN_TTL_SECONDS;
  const issuedAt = Math.floor((options.now ?? new Date()).getTime() / 1000);
  const expiresAt = issuedAt + ttlSeconds;
  const token = await new SignJWT({ room: options.room, db_name: options.dbName, scope: SYNC_TOKEN_SCOPE })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(options.userId)
    .setIssuer(SYNC_TOKEN_ISSUER)
    .setAudience(SYNC_TOKEN_AUDIENCE)
    .setIssuedAt(issuedAt)
    .setExpirationTime(expiresAt)
    .sign(key());
  return {
    token,
    token_type: "Bearer" as const,
    room: options.room,
    db_name: options.dbName,
    scope: SYNC_TOKEN_SCOPE,
    expires_in: ttlSeconds,
    expires_at: new Date(expiresAt * 1000).toISOString(),
  };
}

/**
 * POST /sync/token: a token for one canvas room the caller may write (404/403/400 exactly as a
 * snapshot write to that path would answer).
 */
export async function issueSyncToken(tx: Tx, userId: string, input: z.input<typeof issueSyncTokenInput>) {
  const { room, db_name } = issueSyncTokenInput.parse(input);
  const address = await resolveSnapshotAccess(tx, userId, { path: room, db_name }, "write");
  return signSyncToken({ userId, room: `${address.bucket}/${address.nodeType}/${address.nodeId}`, dbName: address.dbName });
}

export interface SyncTokenClaims {
  userId: string;
  room: string;
  dbName: string;
  scope: string;
  issuedAt: number;
  expiresAt: number;
}

/**
 * For the sync service: verifies a sync token for the room a client is joining, in its graph database.
 * Refuses (401) a token that is expired, tampered with, signed with another secret or algorithm, or meant
 * for another audience; refuses (403) a valid token for another room, for the same room in another
 * database (or naming none: issued before tokens named one), or without the write scope.
 */
export async function verifySyncToken(
  token: string,
  expected: { room: string; db_name: string; now?: Date },
): Promise<SyncTokenClaims> {
  let payload;
  try {
    ({ payload } = await jwtVerify(token, key(), {
      algorithms: ["HS256"],
      audience: SYNC_TOKEN_AUDIENCE,
      issuer: SYNC_TOKEN_ISSUER,
      requiredClaims: ["sub", "exp", "iat"],
      currentDate: expected.now,
    }));
  } catch (error) {
    if (error instanceof joseErrors.JWTExpired) throw new AppError("unauthenticated", "Sync token has expired");
    if (error instanceof joseErrors.JWTClaimValidationFailed && error.claim === "aud") {
      throw new AppError("unauthenticated", "Sync token is not meant for the sync service");
    }
    throw new AppError("unauthenticated", "Invalid sync token");
  }
  if (typeof payload.room !== "string" || payload.room !== expected.room) throw new AppError("forbidden", "Sync token is for another room");
  if (typeof payload.db_name !== "string" || payload.db_name !== expected.db_name) {
    throw new AppError("forbidden", "Sync token is for a room in another graph database");
  }
  if (payload.scope !== SYNC_TOKEN_SCOPE) throw new AppError("forbidden", "Sync token does not allow writing the canvas");
  return {
    userId: payload.sub!,
    room: payload.room,
    dbName: payload.db_name,
    scope: payload.scope,
    issuedAt: payload.iat!,
    expiresAt: payload.exp!,
  };
}
