export type TokenStatus = "active" | "revoked" | "expired";

export function tokenStatus(token: { expires_at: Date; revoked_at: Date | null }, now = new Date()): TokenStatus {
  if (token.revoked_at) return "revoked";
  if (token.expires_at.getTime() <= now.getTime()) return "expired";
  return "active";
}
