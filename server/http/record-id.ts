import { z } from "zod";
import { notFound } from "../errors";

const uuidShape = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The id of the record a request is about (a REST path's id, the tRPC input that plays its part): one
 * that cannot name any record is 404 `what` not found, as one outside the caller's scope, on REST and
 * tRPC alike. Ids that refer to another record (a body's student_id, a filter) stay z.uuid: a 400
 * naming the field. Lowercased, as PostgreSQL prints uuids.
 */
export function recordId(what: string) {
  return z
    .string()
    .check((context) => {
      if (!uuidShape.test(context.value)) throw notFound(what);
    })
    .transform((value) => value.toLowerCase())
    .meta({ format: "uuid", description: `${what} id` });
}
