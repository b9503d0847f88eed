/**
 * Where to go after signing in: a path on this site, else the front door (/), which sends staff to
 * their templates and students to their timetable. An absolute URL (next-auth sends
 * those) counts only when it names `ownOrigin`; `//host`, other sites and other schemes never do.
 */
export function safeCallbackPath(value: string | string[] | undefined | null, ownOrigin?: string): string {
  const fallback = "/";
  const raw = Array.isArray(value) ? value[0] : value;
  if (!raw) return fallback;
  let path = raw;
  if (/^[a-z][a-z0-9+.-]*:/i.test(raw)) {
    try {
      const url = new URL(raw);
      if (!ownOrigin || url.origin !== new URL(ownOrigin).origin) return fallback;
      path = `${url.pathname}${url.search}${url.hash}`;
    } catch {
      return fallback;
    }
  }
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return fallback;
  if (path.startsWith("/signin") || path.startsWith("/api/")) return fallback;
  return path;
}
