export type TokenStatus = "active" | "revoked" | "expired";

export function tokenStatus(token: { expires_at: Date; revoked_at: Date | null }, now = new Date()): TokenStatus {
  if (token.revoked_at) return "revoked";
  if (token.expires_at.getTime() <= now.getTime()) return "expired";
  return "active";
}

const dateFormat = new Intl.DateTimeFormat(undefined, { day: "numeric", month: "short", year: "numeric" });
const dateTimeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: "full", timeStyle: "short" });

export const formatDate = (date: Date) => dateFormat.format(date);
export const formatDateTime = (date: Date) => dateTimeFormat.format(date);
