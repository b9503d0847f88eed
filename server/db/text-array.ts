import { type SQL, sql } from "drizzle-orm";

/**
 * A text[] of these values as one bound parameter (a JSON string unpacked by the database), the same
 * on postgres.js and PGlite, whose array parameters differ.
 */
export const textArray = (values: readonly string[]): SQL =>
  sql`array(select jsonb_array_elements_text(${JSON.stringify(values)}::jsonb))`;
