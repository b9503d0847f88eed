import { notFound } from "../errors";

/** The query parameters of a URL as a plain object (the last value wins), for a zod schema to parse. */
export function queryObject(url: URL): Record<string, string> {
  return Object.fromEntries(url.searchParams.entries());
}

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** An id from the URL path: one that cannot name any record reads as 404, like one outside the caller's scope. */
export function pathId(value: string, what: string): string {
  if (!uuidShape.test(value)) throw notFound(what);
  return value.toLowerCase();
}
