import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import { AppError } from "../errors";
import { serverSecret } from "./secret";

/**
 * User tokens: HS256 JWTs with `sub` (the user id) and `exp`, signed with AUTH_SECRET. Personal access
 * tokens carry a `jti` that names their row in personal_access_tokens, so that they can be revoked.
 */
export interface UserTokenClaims {
  userId: string;
  tokenId?: string;
}

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function key(): Uint8Array {
  return new TextEncoder().encode(serverSecret("AUTH_SECRET"));
}

export async function signUserToken(options: { userId: string; ttlSeconds: number; tokenId?: string }): Promise<string> {
  const jwt = new SignJWT({})
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(options.userId)
    .setIssuedAt()
    .setExpirationTime(Math.floor(Date.now() / 1000) + options.ttlSeconds);
  if (options.tokenId) jwt.setJti(options.tokenId);
  return jwt.sign(key());
}

export async function verifyUserToken(token: string): Promise<UserTokenClaims> {
  try {
    // Only HS256: `alg: none` and algorithm-confusion tokens are refused here.
    const { payload } = await jwtVerify(token, key(), { algorithms: ["HS256"], requiredClaims: ["exp"] });
    if (typeof payload.sub !== "string" || !uuidShape.test(payload.sub)) {
      throw new AppError("unauthenticated", "Token has no valid user id (sub)");
    }
    if (payload.jti !== undefined && (typeof payload.jti !== "string" || !uuidShape.test(payload.jti))) {
      throw new AppError("unauthenticated", "Invalid token id (jti)");
    }
    return { userId: payload.sub.toLowerCase(), tokenId: payload.jti?.toLowerCase() };
  } catch (error) {
    if (error instanceof AppError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw new AppError("unauthenticated", "Token has expired");
    throw new AppError("unauthenticated", "Invalid token");
  }
}

/** The token of an `Authorization: Bearer <token>` header, or null when there is none. */
export function bearerToken(header: string | null): string | null {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? null;
}
