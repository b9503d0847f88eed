import { z } from "zod";
import type { Db } from "../db/client";
import { asUser } from "../db/rls";
import { env } from "../env";
import { AppError } from "../errors";
import { text } from "../../lib/rules/input-rules";
import { parseJson } from "../http/request-body";
import { applyRosterImportInto } from "./roster-apply";
import { type RosterMapping, rosterMappingInput } from "./roster-mapping";
import { type RosterImportResult, importingSchool, planRosterImportInto } from "./roster-plan";
import { type RosterFile, readRosterSource } from "./roster-source";

/**
 * A roster import as the edges call it (tRPC, REST): in one transaction as the caller, the admin check
 * first, then the files read, then the plan (a preview) or the plan and its writes (an import).
 */

export const rosterLimits = () => ({ maxBytes: env().ROSTER_IMPORT_MAX_BYTES, maxRows: env().ROSTER_IMPORT_MAX_ROWS });

/** tRPC input: the files (base64, as a browser reads them) and the mapping (a CSV's; none: guessed). */
export const rosterImportInput = z.object({
  files: z
    .array(
      z.object({
        name: text(255).trim().min(1, "each file needs a name"),
        // Bytes are checked against ROSTER_IMPORT_MAX_BYTES once decoded; this bounds the text first.
        base64: z.base64("must be the file's bytes in base64").max(64 * 1024 * 1024, "the file is too large"),
      }),
    )
    .min(1, "Choose a file to import")
    .max(3, "Choose one CSV file, a OneRoster zip, or the bundle's three CSV files"),
  mapping: rosterMappingInput.nullish(),
});

const decodeRosterFiles = (files: z.output<typeof rosterImportInput>["files"]): RosterFile[] =>
  files.map((file) => ({ name: file.name, bytes: new Uint8Array(Buffer.from(file.base64, "base64")) }));

/** The `mapping` query parameter of REST: a JSON object such as {"email":"E-mail","classCodes":["Sets"]}. */
export function parseMappingParameter(value: string | undefined): RosterMapping | null {
  if (value === undefined) return null;
  try {
    JSON.parse(value);
  } catch {
    throw new AppError("invalid", 'mapping must be a JSON object such as {"fullName":"Name","email":"Email"}', "mapping");
  }
  // parseJson again: its structural rules (duplicate keys, __proto__, depth) hold for the query's JSON too.
  const parsed = rosterMappingInput.safeParse(parseJson(value));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new AppError("invalid", `mapping.${issue.path.join(".") || "?"}: ${issue.message}`, "mapping");
  }
  return parsed.data;
}

export type RosterImportMode = "preview" | "apply";

export function runRosterImport(db: Db, userId: string, files: RosterFile[], mapping: RosterMapping | null | undefined, mode: RosterImportMode): Promise<RosterImportResult> {
  return asUser(db, userId, async (tx) => {
    const instituteId = await importingSchool(tx, userId);
    const source = await readRosterSource(files, rosterLimits());
    if (mode === "apply") return applyRosterImportInto(tx, instituteId, source, mapping, userId);
    return (await planRosterImportInto(tx, instituteId, source, mapping)).result;
  });
}

/** The web app's import: the files as tRPC carries them (base64) and their mapping, previewed or applied. */
export const importRosterFiles = (db: Db, userId: string, input: z.output<typeof rosterImportInput>, mode: RosterImportMode) =>
  runRosterImport(db, userId, decodeRosterFiles(input.files), input.mapping, mode);
