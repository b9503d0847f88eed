import { type JWTPayload, SignJWT } from "jose";

/**
 * An HS256 token signed by the test rather than by the server's own signer, for tokens the server must
 * refuse: a claim missing or changed, another audience, another secret. Issued now, valid five minutes.
 */
export function signHandMadeToken(token: { secret: string; claims?: JWTPayload; subject?: string; issuer?: string; audience?: string }): Promise<string> {
  const jwt = new SignJWT(token.claims ?? {}).setProtectedHeader({ alg: "HS256" }).setIssuedAt().setExpirationTime("5m");
  if (token.subject !== undefined) jwt.setSubject(token.subject);
  if (token.issuer !== undefined) jwt.setIssuer(token.issuer);
  if (token.audience !== undefined) jwt.setAudience(token.audience);
  return jwt.sign(new TextEncoder().encode(token.secret));
}
