import { recordId } from "../http/input-rules";

/** The query parameters of a URL as a plain object (the last value wins), for a zod schema to parse. */
export function queryObject(url: URL): Record<string, string> {
  return Object.fromEntries(url.searchParams.entries());
}

/** An id from the URL path: one that cannot name any record reads as 404 (recordId). */
export function pathId(value: string, what: string): string {
  return recordId(what).parse(value);
}
