import { z } from "zod";
import { AppError } from "../../errors";
import { queryBoolean, text } from "../../../lib/rules/input-rules";
import { readBoundedBody } from "../../http/request-body";
import { defineRoute, errorMeaning, jsonReply, replyWith, streamedBody } from "../../http/route";
import { parseMappingParameter, rosterLimits, runRosterImport } from "../roster-import";
import { rosterImportOutput } from "../roster-plan";
import { importTooLarge } from "../roster-source";
import { schoolTag } from "./school-tag";

/** Roster imports of the caller's school: a CSV or a OneRoster zip as the body, previewed or applied. */

const tags = [schoolTag.name];

const rosterImportQuery = z.object({
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

export const rosterImportRoute = defineRoute({
  method: "POST",
  path: "/api/school/roster-imports",
  operationId: "importRoster",
  tags,
  summary: "Import people, classes and enrollments from a CSV or a OneRoster 1.1 zip (school admins)",
  description:
    "The body is the file itself: a school export's CSV (comma, semicolon or tab; UTF-8, UTF-16 or Windows-1252) with its column mapping " +
    "in `mapping`, or a OneRoster 1.1 CSV bundle as a zip (users.csv, classes.csv, enrollments.csv). With dry_run=true the reply is " +
    "the plan and nothing is written; otherwise the same plan is written in one transaction (201). People are matched within the " +
    "school by SIS id, else email, else username; classes by SIS id, else name. An import adds and updates; it never deletes, " +
    "deactivates or sets a password. A CSV whose mapping cannot work answers the plan with `mappingProblems` (dry run) or 400.",
  auth: "bearer",
  query: rosterImportQuery,
  body: streamedBody("text/csv", { type: "string", description: "The CSV file, or (Content-Type: application/zip) the OneRoster bundle" }),
  replies: {
    200: jsonReply(rosterImportOutput, "The plan (dry_run=true): who would be created, updated, unchanged or skipped, and why"),
    201: jsonReply(rosterImportOutput, "The import, written: the same plan with applied true"),
  },
  errors: {
    400: errorMeaning.invalid,
    403: "Not a school admin of the caller's school",
    409: "The school's people changed while the import ran: preview again",
    413: "Larger than the import limit (ROSTER_IMPORT_MAX_BYTES, ROSTER_IMPORT_MAX_ROWS)",
    415: "Neither a CSV nor a zip",
  },
  handler: async ({ request, db, user, query }) => {
    const mapping = parseMappingParameter(query.mapping);
    const name = query.filename ?? defaultName(request.headers.get("content-type"));
    const { maxBytes } = rosterLimits();
    const bytes = await readBoundedBody(request, maxBytes).catch((error: unknown) => {
      throw error instanceof AppError && error.code === "too_large" ? importTooLarge(maxBytes) : error;
    });
    const result = await runRosterImport(db, user.id, [{ name, bytes }], mapping, query.dry_run ? "preview" : "apply");
    return replyWith(query.dry_run ? 200 : 201, result);
  },
});

export const rosterImportRoutes = [rosterImportRoute];
