import type { z } from "zod";

/**
 * Checks a REST reply against its declared schema. A reply that breaks its own schema is our bug (500),
 * not the client's (400), so the failure is a plain Error rather than a ZodError.
 */
export function validatedReply<Schema extends z.ZodType>(schema: Schema, value: unknown, route: string): z.output<Schema> {
  const reply = schema.safeParse(value);
  if (!reply.success) throw new Error(`${route} reply does not match its schema: ${reply.error.message}`);
  return reply.data;
}
