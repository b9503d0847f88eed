import { pathTemplatePattern } from "./path-template";
import { type HttpMethod, httpMethods } from "./route";

/**
 * Next.js answers a method a route file does not export with an empty 405. For the REST paths this
 * answers it in the API's `{detail}` dialect instead, with the `Allow` header, before Next.js sees the
 * request (server.ts). The table comes from the route definitions themselves (server/rest-routes.ts).
 */
export interface MethodTable {
  /** The methods of the REST path this URL path is, or null when it is none of them. */
  methodsAt(pathname: string): readonly HttpMethod[] | null;
}

export function methodTable(routes: readonly { method: HttpMethod; path: string }[]): MethodTable {
  // A literal segment beats a parameter (`/classes/school/students` before `/classes/{class_id}/students`),
  // as in Next.js' router.
  const paths = [...new Set(routes.map((route) => route.path))].sort((a, b) => literalSegments(b) - literalSegments(a));
  const entries = paths.map((path) => ({
    pattern: pathTemplatePattern(path),
    // In the order the Allow header lists them.
    methods: Object.freeze(httpMethods.filter((method) => routes.some((route) => route.path === path && route.method === method))),
  }));
  return {
    methodsAt(pathname) {
      return entries.find((entry) => entry.pattern.test(pathname))?.methods ?? null;
    },
  };
}

const literalSegments = (path: string) => path.split("/").filter((segment) => segment && !segment.startsWith("{")).length;

export interface MethodNotAllowed {
  status: 405;
  allow: string;
  body: { detail: string };
}

/** The 405 for `method` at a REST path that has other methods, or null when the method is one of them (HEAD and OPTIONS are Next.js'). */
export function methodNotAllowed(table: MethodTable, method: string | undefined, url: string | undefined): MethodNotAllowed | null {
  if (!method || !url || method === "HEAD" || method === "OPTIONS") return null;
  let pathname: string;
  try {
    pathname = new URL(url, "http://markbook.invalid").pathname;
  } catch {
    return null;
  }
  const methods = table.methodsAt(pathname);
  if (!methods || (methods as readonly string[]).includes(method)) return null;
  const allow = methods.join(", ");
  return { status: 405, allow, body: { detail: `${method} is not an operation of ${pathname}: it answers ${allow}` } };
}
