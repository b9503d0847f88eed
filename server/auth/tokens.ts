import crypto from "node:crypto";
import { SignJWT } from "jose";
import { AppError } from "../errors";
import { serverSecret } from "./secret";

/**
 * User tokens: HS256 JWTs with `sub` (the user id) and `exp`, signed with AUTH_SECRET. Personal access
 * tokens carry a `jti` that names their row in personal_access_tokens, so that they can be revoked.
 */
export interface UserTokenClaims {
  userId: string;
  tokenId?: string;
  /**
   * When the token was issued (ms since the epoch): its ISSUED_AT_CLAIM, else its `iat` (whole seconds),
   * else undefined. A password changed after it ends the token (app.user_token_state).
   */
  issuedAtMs?: number;
}

/**
 * The token's time of issue in milliseconds: `iat` has whole seconds, and a token issued in the second
 * of a password reset, but after it, must still work.
 */
export const ISSUED_AT_CLAIM = "issued_at_ms";
const MAX_DATE_MS = 8.64e15;

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// The secret is read once per process (env() is too): in the embedded mode serverSecret reads a file.
let secretBytes: Buffer | undefined;
const key = (): Buffer => (secretBytes ??= Buffer.from(serverSecret("AUTH_SECRET"), "utf8"));

export async function signUserToken(options: { userId: string; ttlSeconds: number; tokenId?: string }): Promise<string> {
  const now = Date.now();
  const jwt = new SignJWT({ [ISSUED_AT_CLAIM]: now })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(options.userId)
    .setIssuedAt(Math.floor(now / 1000))
    .setExpirationTime(Math.floor(now / 1000) + options.ttlSeconds);
  if (options.tokenId) jwt.setJti(options.tokenId);
  return jwt.sign(key());
}

export async function verifyUserToken(token: string): Promise<UserTokenClaims> {
  const payload = verifyHs256Jwt(token, key());
  if (typeof payload.sub !== "string" || !uuidShape.test(payload.sub)) {
    throw new AppError("unauthenticated", "Token has no valid user id (sub)");
  }
  if (payload.jti !== undefined && (typeof payload.jti !== "string" || !uuidShape.test(payload.jti))) {
    throw new AppError("unauthenticated", "Invalid token id (jti)");
  }
  const issuedAtMs = payload[ISSUED_AT_CLAIM];
  const issuedAt = typeof issuedAtMs === "number" ? issuedAtMs : typeof payload.iat === "number" ? payload.iat * 1000 : undefined;
  // Beyond what a Date holds, a time of issue says nothing: counted as unknown (issued before any change).
  if (issuedAt !== undefined && !(Math.abs(issuedAt) <= MAX_DATE_MS)) return { userId: payload.sub.toLowerCase(), tokenId: payload.jti?.toLowerCase() };
  return { userId: payload.sub.toLowerCase(), tokenId: payload.jti?.toLowerCase(), issuedAtMs: issuedAt };
}

const base64urlPart = /^[A-Za-z0-9_-]*$/;
const invalidToken = () => new AppError("unauthenticated", "Invalid token");
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

function decodeJsonObject(part: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(strictUtf8.decode(Buffer.from(part, "base64url")));
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // not base64url, not UTF-8 or not JSON: the same refusal below
  }
  throw invalidToken();
}

/**
 * Verifies a compact HS256 JWT with node:crypto and returns its claims. It applies the rules jose's
 * `jwtVerify(token, secret, { algorithms: ["HS256"], requiredClaims: ["exp"] })` applied here before
 * (the header names HS256, so `alg: none` and algorithm confusion are refused; the signature matches;
 * the claims are a JSON object; `exp` is a number and in the future; `nbf`, when present, is a number
 * and not in the future; `iat`, when present, is a number), and refuses any `crit` header, which
 * Markbook never issues. jose imported the secret into WebCrypto at every call: about 80 µs of CPU per
 * request against 5 µs here (HMAC-SHA256 and a constant-time comparison).
 */
export function verifyHs256Jwt(token: string, secret: Buffer): Record<string, unknown> {
  const parts = token.split(".");
  if (parts.length !== 3 || !parts.every((part) => base64urlPart.test(part))) throw invalidToken();
  const [encodedHeader, encodedPayload, encodedSignature] = parts as [string, string, string];
  const header = decodeJsonObject(encodedHeader);
  if (header.alg !== "HS256" || header.crit !== undefined || header.b64 !== undefined) throw invalidToken();
  const expected = crypto.createHmac("sha256", secret).update(`${encodedHeader}.${encodedPayload}`, "ascii").digest();
  const signature = Buffer.from(encodedSignature, "base64url");
  if (signature.length !== expected.length || !crypto.timingSafeEqual(signature, expected)) throw invalidToken();

  const claims = decodeJsonObject(encodedPayload);
  const now = Math.floor(Date.now() / 1000);
  const { exp, nbf, iat } = claims;
  if (typeof exp !== "number" || (nbf !== undefined && typeof nbf !== "number") || (iat !== undefined && typeof iat !== "number")) {
    throw invalidToken();
  }
  if (typeof nbf === "number" && nbf > now) throw invalidToken();
  if (exp <= now) throw new AppError("unauthenticated", "Token has expired");
  return claims;
}

/** The token of an `Authorization: Bearer <token>` header, or null when there is none. */
export function bearerToken(header: string | null): string | null {
  const match = header?.match(/^Bearer\s+(\S+)\s*$/i);
  return match?.[1] ?? null;
}
