import { z } from "zod";
import { notFound } from "../errors";

/** A boolean query parameter as tools send them: true/false, 1/0, yes/no; absent is undefined. */
export const queryBoolean = z
  .enum(["true", "false", "1", "0", "yes", "no"], { error: "must be true or false" })
  .transform((value) => ["true", "1", "yes"].includes(value))
  .optional();

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
