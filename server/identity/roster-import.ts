import { z } from "zod";
import type { Db } from "../db/client";
import { asUser } from "../db/rls";
import { env } from "../env";
import { AppError } from "../errors";
import { queryBoolean, text } from "../../lib/rules/input-rules";
import { parseJson } from "../http/request-body";
import { applyRosterImportInto } from "./roster-apply";
import { type RosterMapping, rosterMappingInput } from "./roster-mapping";
import { type RosterImportResult, importingSchool, planRosterImportInto } from "./roster-plan";
import { type RosterFile, importTooLarge, readRosterSource } from "./roster-source";

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

/** REST's query beside the file itself (POST /api/school/roster-imports): preview or write, the CSV's mapping, the file's name. */
export const rosterUploadInput = z.object({
  dry_run: queryBoolean.default(false).meta({ description: "true: answer the plan (a preview) and write nothing" }),
  mapping: text(10_000)
    .optional()
    .meta({
      description:
        'A CSV\'s columns, as JSON: {"fullName","firstName","legalFirstName","lastName","email","username","yearGroup","role","sisId","teacher": column name; "classCodes": [column names]}. ' +
        "Absent: the mapping last applied by the school to a file with the same header (mappingRemembered says when it was chosen), else guessed from the header (the reply says which). An import remembers the mapping it was applied with.",
    }),
  filename: text(255).trim().min(1).optional().meta({ description: "The file's name, used in messages (default roster.csv or roster.zip)" }),
});

/** Content types a CSV or a zip arrives with (browsers on Windows send CSV as application/vnd.ms-excel). */
const csvTypes = ["text/csv", "text/plain", "application/csv", "application/vnd.ms-excel", "text/tab-separated-values"];
const zipTypes = ["application/zip", "application/x-zip-compressed", "application/octet-stream"];

function defaultName(contentType: string | null): string {
  const mediaType = (contentType ?? "").split(";")[0]!.trim().toLowerCase();
  if (csvTypes.includes(mediaType)) return "roster.csv";
  if (zipTypes.includes(mediaType)) return "roster.zip";
  throw new AppError("unsupported_media", "Send the roster as a CSV file (Content-Type: text/csv) or a OneRoster zip (Content-Type: application/zip)");
}

/** The file of a REST import, as the request streams it: its declared type, and its bytes read within a bound. */
interface RosterUpload {
  contentType: string | null;
  read(maxBytes: number): Promise<Uint8Array>;
}

/** A tool's import: the file itself (a CSV or a OneRoster zip), its mapping as JSON, previewed (dry_run) or applied. */
export async function importRosterUpload(db: Db, userId: string, input: z.output<typeof rosterUploadInput>, upload: RosterUpload): Promise<RosterImportResult> {
  const mapping = parseMappingParameter(input.mapping);
  const name = input.filename ?? defaultName(upload.contentType);
  const { maxBytes } = rosterLimits();
  const bytes = await upload.read(maxBytes).catch((error: unknown) => {
    throw error instanceof AppError && error.code === "too_large" ? importTooLarge(maxBytes) : error;
  });
  return runRosterImport(db, userId, [{ name, bytes }], mapping, input.dry_run ? "preview" : "apply");
}
