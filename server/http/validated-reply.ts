import type { z } from "zod";
import { ReplySchemaError } from "../errors";

/**
 * Checks a reply against its declared schema (`what` names the route or operation in the log). A reply
 * that breaks its own schema is the server's bug, a logged 500, not the client's 400: the failure is a
 * ReplySchemaError, never the ZodError that reads as bad input.
 */
export function validatedReply<Schema extends z.ZodType>(schema: Schema, value: unknown, what: string): z.output<Schema> {
  const reply = schema.safeParse(value);
  if (!reply.success) throw new ReplySchemaError(what, reply.error);
  return reply.data;
}
