import type http from "node:http";

/**
 * A path under the REST prefixes whose percent-encoding cannot be decoded (`/api/exam/batches/%ff/queue`:
 * `%ff` is no UTF-8 character; `%zz` and a lone `%` are no escape at all) is the client's mistake. Next.js
 * failed to decode it and answered a plain-text 500, signed in or not; server.ts answers it first with
 * the API's 400 `{detail}`, for every method. Paths of the web app's pages are left to Next.js.
 */

interface MalformedPath {
  status: 400;
  body: { detail: string };
}

/** The first path segments of the REST paths and the other routes under /api (tRPC, next-auth, the catch-all). */
export function restPrefixes(routes: readonly { path: string }[]): ReadonlySet<string> {
  return new Set(["api", "database", "graph", ...routes.map((route) => route.path.split("/")[1]!)]);
}

/** A malformed escape in the path (a `%` not followed by two hex digits, or escapes that are not UTF-8), as written. */
function firstMalformedEscape(segment: string): string | null {
  try {
    decodeURIComponent(segment);
    return null;
  } catch {
    // The escapes, in runs: the first run that does not decode on its own is the one to name.
    for (const run of segment.match(/(?:%[0-9a-fA-F]{2})+|%.{0,2}/g) ?? []) {
      try {
        decodeURIComponent(run);
      } catch {
        return run;
      }
    }
    return segment;
  }
}

const shown = (text: string) => (text.length > 200 ? `${text.slice(0, 200)}…` : text);

/** The 400 for a request whose path under a REST prefix has malformed percent-encoding, or null. */
function malformedPath(prefixes: ReadonlySet<string>, url: string | undefined): MalformedPath | null {
  if (!url || !url.startsWith("/")) return null;
  const path = url.split(/[?#]/, 1)[0]!;
  const [, first = "", ...rest] = path.split("/");
  let prefix: string;
  try {
    prefix = decodeURIComponent(first);
  } catch {
    return null; // not a REST path: the first segment names none
  }
  if (!prefixes.has(prefix)) return null;
  for (const segment of rest) {
    const escape = firstMalformedEscape(segment);
    if (escape === null) continue;
    return {
      status: 400,
      body: {
        detail:
          `The path ${shown(path)} is not valid: "${shown(escape)}" is not a percent-encoded character ` +
          "(a % must start an escape of two hex digits, and escapes must spell UTF-8; a % itself is written %25)",
      },
    };
  }
  return null;
}

/** Answers the 400 when the request's path is malformed (true), or leaves the request alone (false). */
export function answerMalformedPath(prefixes: ReadonlySet<string>, request: http.IncomingMessage, response: http.ServerResponse): boolean {
  const refused = malformedPath(prefixes, request.url);
  if (!refused) return false;
  response.writeHead(refused.status, { "content-type": "application/json" }).end(request.method === "HEAD" ? undefined : JSON.stringify(refused.body));
  return true;
}
