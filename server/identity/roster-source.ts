import { AppError } from "../errors";
import { type CsvTable, parseCsvTable } from "./roster-csv";
import { megabytes, unzipWithBudget } from "./roster-zip";

/**
 * What a roster import was given, recognised: one CSV of a school export, or a OneRoster 1.1 CSV
 * bundle (a zip, or its users.csv, classes.csv and enrollments.csv given together). Other files of a
 * bundle (manifest.csv, orgs.csv, academicSessions.csv …) are ignored.
 */

export interface RosterFile {
  name: string;
  bytes: Uint8Array;
}

export interface RosterLimits {
  maxBytes: number;
  maxRows: number;
}

export type RosterSource =
  | { format: "csv"; table: CsvTable }
  | { format: "oneroster"; users: CsvTable; classes: CsvTable | null; enrollments: CsvTable | null };

/**
 * A zip's CSV files may unpack to this many times the upload limit together (CSV packs about 5:1),
 * counted as they are inflated (server/identity/roster-zip.ts); beyond it the zip is refused.
 */
const UNPACKED_FACTOR = 4;

/** The 413 of an import over ROSTER_IMPORT_MAX_BYTES, in megabytes as a person reads a file's size. */
export const importTooLarge = (maxBytes: number) =>
  new AppError("too_large", `The import is larger than ${megabytes(maxBytes)}: split it into smaller files`, "file");

const ONE_FILE = "Choose one CSV file, a OneRoster zip, or the bundle's users.csv, classes.csv and enrollments.csv together";

const baseName = (name: string) => name.split(/[\\/]/).pop()!.toLowerCase();
const isZip = (file: RosterFile) => file.bytes[0] === 0x50 && file.bytes[1] === 0x4b && file.bytes[2] === 0x03 && file.bytes[3] === 0x04;

/**
 * The files of an import, recognised and parsed; a 400 or 413 that names the file when they cannot be.
 * Asynchronous: a zip is inflated off the event loop.
 */
export async function readRosterSource(files: readonly RosterFile[], limits: RosterLimits): Promise<RosterSource> {
  if (files.length === 0) throw new AppError("invalid", "Choose a file to import", "file");
  const total = files.reduce((sum, file) => sum + file.bytes.byteLength, 0);
  if (total > limits.maxBytes) throw importTooLarge(limits.maxBytes);
  const zips = files.filter(isZip);
  if (zips.length > 0) {
    if (files.length > 1) throw new AppError("invalid", ONE_FILE, "file");
    return await readBundle(await unzipBundle(zips[0]!, limits), limits, zips[0]!.name);
  }
  const named = new Map(files.map((file) => [baseName(file.name), file]));
  if (named.has("users.csv") && files.length > 1) return await readBundle(files, limits, "The files");
  if (files.length > 1) throw new AppError("invalid", ONE_FILE, "file");
  const table = await parseCsvTable(files[0]!.bytes, files[0]!.name, limits.maxRows);
  // A bundle's users.csv given alone: still OneRoster, without classes or enrollments.
  if (baseName(files[0]!.name) === "users.csv" && table.columns.includes("sourcedId")) {
    return { format: "oneroster", users: table, classes: null, enrollments: null };
  }
  return { format: "csv", table };
}

const BUNDLE_FILES = ["users.csv", "classes.csv", "enrollments.csv"];

async function unzipBundle(zip: RosterFile, limits: RosterLimits): Promise<RosterFile[]> {
  const entries = await unzipWithBudget(zip.bytes, {
    zipName: zip.name,
    wanted: (path) => BUNDLE_FILES.includes(baseName(path)),
    displayName: baseName,
    maxUnpackedBytes: limits.maxBytes * UNPACKED_FACTOR,
  });
  return entries.map((entry) => ({ name: baseName(entry.path), bytes: entry.bytes }));
}

async function readBundle(files: readonly RosterFile[], limits: RosterLimits, where: string): Promise<RosterSource> {
  const byName = new Map(files.map((file) => [baseName(file.name), file]));
  const table = (name: string) => {
    const file = byName.get(name);
    return file ? parseCsvTable(file.bytes, name, limits.maxRows) : Promise.resolve(null);
  };
  const users = await table("users.csv");
  if (!users) throw new AppError("invalid", `${where} is not a OneRoster bundle: it has no users.csv`, "file");
  for (const required of ["sourcedId", "role"]) {
    if (!users.columns.includes(required)) throw new AppError("invalid", `users.csv has no ${required} column: it is not a OneRoster users file`, "file");
  }
  return { format: "oneroster", users, classes: await table("classes.csv"), enrollments: await table("enrollments.csv") };
}
