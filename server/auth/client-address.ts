/**
 * Who is at the other end of a request, for counting failed sign-ins per client address
 * (server/auth/sign-in-throttle.ts). server.ts sets CLIENT_ADDRESS_HEADER on every request it hands to
 * Next.js, replacing whatever the client sent under that name, so a client cannot choose its address.
 */
export const CLIENT_ADDRESS_HEADER = "x-markbook-client-address";

/**
 * The client's address: the socket's peer, or, behind `trustedProxyHops` reverse proxies (TRUSTED_PROXY_HOPS),
 * the X-Forwarded-For entry the outermost trusted proxy added. Entries further left were written by the
 * client or by proxies nobody vouches for, so they are never used. Null when nothing is known.
 */
export function clientAddressOf(remoteAddress: string | undefined, forwardedFor: string | string[] | undefined, trustedProxyHops: number): string | null {
  if (trustedProxyHops === 0) return remoteAddress ? normaliseAddress(remoteAddress) : null;
  const entries = (Array.isArray(forwardedFor) ? forwardedFor.join(",") : (forwardedFor ?? ""))
    .split(",")
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
  // The last proxy's own peer is the socket; each hop before it appended the address it saw.
  const chosen = entries.length >= trustedProxyHops ? entries[entries.length - trustedProxyHops] : entries[0];
  const address = chosen ?? remoteAddress;
  return address ? normaliseAddress(address) : null;
}

/** One spelling per address: IPv4 seen through an IPv6 socket (`::ffff:192.0.2.1`) is the IPv4 address. */
function normaliseAddress(address: string): string {
  const trimmed = address.trim().toLowerCase().slice(0, 100);
  return trimmed.startsWith("::ffff:") && trimmed.includes(".") ? trimmed.slice("::ffff:".length) : trimmed;
}
