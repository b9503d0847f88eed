import crypto from "node:crypto";
import { and, eq } from "drizzle-orm";
import type { Tx } from "../db/client";
import { rosterMappings } from "../db/schema";
import { type RosterMapping, rosterMappingInput } from "./roster-mapping";

/**
 * The column mappings a school chose, remembered per set of headers: the next CSV with the same header
 * is read the same way without choosing again (issue 33, item 2). A header set is its column names
 * trimmed, in lower case with spaces folded, sorted: the same export with its columns moved about or
 * their case changed is the same set. Row-level security keeps a school's mappings to its admins.
 */

const normalisedHeader = (name: string) => name.normalize("NFC").trim().toLowerCase().replace(/\s+/g, " ");

/** The key of a header set: sha256 of its normalised names, sorted (a header may be thousands of characters). */
export function headerKey(columns: readonly string[]): string {
  const names = columns.map(normalisedHeader).sort();
  return crypto.createHash("sha256").update(JSON.stringify(names)).digest("hex");
}

/** A mapping written with another spelling of the same columns, in this file's column names (null: a column is missing). */
export function mappingForColumns(saved: unknown, columns: readonly string[]): RosterMapping | null {
  const parsed = rosterMappingInput.safeParse(saved);
  if (!parsed.success) return null;
  const byNormal = new Map(columns.map((name) => [normalisedHeader(name), name]));
  const translate = (name: string) => (columns.includes(name) ? name : byNormal.get(normalisedHeader(name)));
  const mapping: RosterMapping = { ...parsed.data, classCodes: [] };
  for (const [field, value] of Object.entries(parsed.data) as [keyof RosterMapping, unknown][]) {
    if (field === "classCodes" || value === null || value === undefined) continue;
    const column = translate(value as string);
    if (!column) return null;
    (mapping as Record<string, unknown>)[field] = column;
  }
  for (const name of parsed.data.classCodes) {
    const column = translate(name);
    if (!column) return null;
    mapping.classCodes.push(column);
  }
  return mapping;
}

export interface RememberedMapping {
  mapping: RosterMapping;
  savedAt: Date;
}

/** The mapping the school chose for this header set, in this file's column names; null when there is none. */
export async function recallMapping(tx: Tx, instituteId: string, columns: readonly string[]): Promise<RememberedMapping | null> {
  const [row] = await tx
    .select({ mapping: rosterMappings.mapping, saved_at: rosterMappings.saved_at })
    .from(rosterMappings)
    .where(and(eq(rosterMappings.institute_id, instituteId), eq(rosterMappings.header_key, headerKey(columns))));
  if (!row) return null;
  const mapping = mappingForColumns(row.mapping, columns);
  return mapping ? { mapping, savedAt: row.saved_at } : null;
}

/** The mapping as stored: every field present, null where no column is chosen, so two equal choices compare equal. */
const canonical = (mapping: RosterMapping) => {
  const parsed = rosterMappingInput.parse(mapping);
  return Object.fromEntries(Object.keys(rosterMappingInput.shape).map((field) => [field, parsed[field as keyof RosterMapping] ?? (field === "classCodes" ? [] : null)]));
};

/**
 * Remembers the mapping an import was applied with. Its date stays the date it was chosen: applying the
 * same mapping again leaves the row as it is; a different one replaces it.
 */
export async function rememberMapping(tx: Tx, instituteId: string, columns: readonly string[], mapping: RosterMapping, savedBy: string | null): Promise<void> {
  const key = headerKey(columns);
  const stored = canonical(mapping);
  const [existing] = await tx
    .select({ mapping: rosterMappings.mapping })
    .from(rosterMappings)
    .where(and(eq(rosterMappings.institute_id, instituteId), eq(rosterMappings.header_key, key)));
  // Compared in this file's spelling and in one key order (jsonb keeps its own order of keys).
  const previous = existing ? mappingForColumns(existing.mapping, columns) : null;
  if (previous && JSON.stringify(canonical(previous)) === JSON.stringify(stored)) return;
  // The header as a person reads it: a column the mapping does not use may hold anything (a NUL from a UTF-16 file).
  const readable = columns.map((name) => name.replaceAll("\u0000", "\ufffd").slice(0, 200));
  await tx
    .insert(rosterMappings)
    .values({ institute_id: instituteId, header_key: key, columns: readable, mapping: stored, saved_by: savedBy })
    .onConflictDoUpdate({
      target: [rosterMappings.institute_id, rosterMappings.header_key],
      set: { columns: readable, mapping: stored, saved_by: savedBy, saved_at: new Date() },
    });
}

/** Whether `mapping` is the remembered one (the same columns for the same fields). */
export const rememberedMappingIs = (remembered: RosterMapping, mapping: RosterMapping) => JSON.stringify(canonical(remembered)) === JSON.stringify(canonical(mapping));
