import type { z } from "zod";
import { type OpenApiFragment, errorResponses, jsonResponse, jsonSchemaOf } from "../http/openapi-schema";
import { bootstrapProfileOutput } from "../identity/bootstrap-profile";
import { classListOutput, schoolClassListOutput } from "./classes";
import { addStudentToClassBody, classStudentsOutput, enrollmentOutput } from "./enrollments";
import { schoolStudentsOutput } from "./school-students";
import { snapshotLocationInput, storeSnapshotOutput } from "./snapshots";
import { issueSyncTokenInput, syncTokenOutput } from "./sync-tokens";
import { listTimetablesInput, listTimetablesOutput } from "./timetables";

/**
 * The classroom supporting endpoints as an OpenAPI 3.1 fragment, generated from the same zod schemas
 * the handlers validate with; `server/http/openapi.ts` merges it into /api/openapi.json.
 * (GET /graph/node/children is in the graph fragment.)
 */

type JsonSchema = Record<string, unknown>;

const jsonSchema = (schema: z.ZodType, io: "input" | "output") => jsonSchemaOf(schema, io);

/** An object schema's members as query parameters. */
function queryParameters(schema: z.ZodObject, descriptions: Record<string, string> = {}) {
  const generated = jsonSchema(schema, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(generated.properties ?? {}).map(([name, property]) => ({
    name,
    in: "query",
    required: generated.required?.includes(name) ?? false,
    ...(descriptions[name] ? { description: descriptions[name] } : {}),
    schema: property,
  }));
}

const errorMeanings: Record<number, string> = {
  400: "Invalid request (see detail)",
  401: "Missing or invalid bearer token",
  403: "Outside the caller's scope or role",
  404: "Not found, or outside the caller's scope",
  409: "Conflict",
  413: "Body larger than the maximum size",
  502: "Storage failure",
};
const errors = (...statuses: number[]) =>
  errorResponses(Object.fromEntries(statuses.map((status) => [status, errorMeanings[status] ?? "Error"])));
const json = (schema: JsonSchema, description = "OK") => jsonResponse(description, schema);
const security = [{ bearerAuth: [] }];

const etagHeader = { ETag: { description: "Strong entity tag of the reply (a hash of its bytes)", schema: { type: "string" } } };

/** The If-None-Match header of the lists served through the reply cache (server/classroom/reply-cache.ts). */
export const ifNoneMatchParameter = {
  name: "If-None-Match",
  in: "header",
  required: false,
  description: "ETag of a reply the client holds: 304 without a body while it is still the current reply",
  schema: { type: "string" },
};

/** 200 with an ETag, or 304 when If-None-Match names the current reply. */
export function conditionalJsonResponses(schema: JsonSchema, description = "OK") {
  return {
    200: { ...jsonResponse(description, schema), headers: etagHeader },
    304: { description: "Not modified: If-None-Match names the current reply", headers: etagHeader },
  };
}

const snapshotSchema: JsonSchema = {
  type: "object",
  description:
    "A tldraw canvas snapshot as getSnapshot(editor.store) produces it: {document: {store, schema}, session}. Valid when it has " +
    "document and session (objects) and either document.schema or a root schemaVersion.",
  required: ["document", "session"],
  properties: {
    document: { type: "object", properties: { store: { type: "object" }, schema: { type: "object" } } },
    session: { type: "object" },
    schemaVersion: { type: "integer" },
  },
};

const snapshotLocationParameters = queryParameters(snapshotLocationInput, {
  path: "<bucket>/<node_type>/<node_id>; the bucket must be SNAPSHOT_BUCKET (default cc.public.snapshots); node_type and node_id: letters, digits, _ and -",
  db_name: "The graph database the snapshot belongs to: one of the caller's (personal, institute or curriculum; the global database only to read a calendar canvas). The same path in another database is another canvas.",
});

export const classroomOpenApi: OpenApiFragment = {
  tags: [{ name: "classroom", description: "Profile bootstrap, timetables, classes, canvas snapshots and sync tokens" }],
  paths: {
    "/me/bootstrap": {
      get: {
        tags: ["classroom"],
        summary: "The caller's bootstrap profile",
        security,
        parameters: [ifNoneMatchParameter],
        responses: { ...conditionalJsonResponses(jsonSchema(bootstrapProfileOutput, "output")), ...errors(401) },
      },
    },
    "/database/timetable/timetables": {
      get: {
        tags: ["classroom"],
        summary: "Timetables of the caller's school, newest first",
        description: "Empty when the caller has no school or is not a school_admin or department_head of it.",
        security,
        parameters: queryParameters(listTimetablesInput),
        responses: { 200: json(jsonSchema(listTimetablesOutput, "output")), ...errors(400, 401) },
      },
    },
    "/database/timetable/classes": {
      get: {
        tags: ["classroom"],
        summary: "Every class of the caller's school, with total",
        description: "Empty (total 0) when the caller has no school.",
        security,
        parameters: [ifNoneMatchParameter],
        responses: { ...conditionalJsonResponses(jsonSchema(schoolClassListOutput, "output")), ...errors(401) },
      },
    },
    "/database/timetable/classes/teaching": {
      get: {
        tags: ["classroom"],
        summary: "Classes the caller teaches (main teacher, or in an active timetable)",
        security,
        responses: { 200: json(jsonSchema(classListOutput, "output")), ...errors(401) },
      },
    },
    "/database/timetable/classes/enrolled": {
      get: {
        tags: ["classroom"],
        summary: "Classes the caller is actively enrolled in",
        security,
        responses: { 200: json(jsonSchema(classListOutput, "output")), ...errors(401) },
      },
    },
    "/database/timetable/classes/school/students": {
      get: {
        tags: ["classroom"],
        summary: "Students of the caller's school, ordered by full_name",
        security,
        parameters: [ifNoneMatchParameter],
        responses: { ...conditionalJsonResponses(jsonSchema(schoolStudentsOutput, "output")), ...errors(401) },
      },
    },
    "/database/timetable/classes/{class_id}/students": {
      parameters: [{ name: "class_id", in: "path", required: true, schema: { type: "string", format: "uuid" } }],
      get: {
        tags: ["classroom"],
        summary: "Students of a class, by full_name",
        security,
        parameters: [{ name: "include_inactive", in: "query", required: false, schema: { type: "boolean", default: false } }, ifNoneMatchParameter],
        responses: { ...conditionalJsonResponses(jsonSchema(classStudentsOutput, "output")), ...errors(400, 401, 404) },
      },
      post: {
        tags: ["classroom"],
        summary: "Add a student of the school to the class (school admins)",
        description: "Idempotent: adding an enrolled student changes nothing; an inactive enrollment becomes active again.",
        security,
        requestBody: { required: true, content: { "application/json": { schema: jsonSchema(addStudentToClassBody, "input") } } },
        responses: { 200: json(jsonSchema(enrollmentOutput, "output"), "The (active) enrollment"), ...errors(400, 401, 403, 404) },
      },
    },
    "/get_canvas_node_file": {
      get: {
        tags: ["classroom"],
        summary: "Load a canvas snapshot",
        description:
          "A missing, malformed or structurally invalid snapshot answers an empty canvas (one page); header X-Snapshot-Source says stored or default. " +
          "403 without a token or with a token without a user id.",
        security,
        parameters: snapshotLocationParameters,
        responses: { 200: json(snapshotSchema), ...errors(400, 401, 403, 502) },
      },
    },
    "/put_canvas_node_file": {
      put: {
        tags: ["classroom"],
        summary: "Store a canvas snapshot (replaces it atomically)",
        description: "Same access rules as the read; calendar node types are read-only (403). At most MAX_SNAPSHOT_BYTES (413).",
        security,
        parameters: snapshotLocationParameters,
        requestBody: { required: true, content: { "application/json": { schema: snapshotSchema } } },
        responses: { 200: json(jsonSchema(storeSnapshotOutput, "output")), ...errors(400, 401, 403, 413, 502) },
      },
    },
    "/sync/token": {
      post: {
        tags: ["classroom"],
        summary: "A short-lived token for the real-time sync service, for one canvas room the caller may write",
        description:
          "HS256 JWT signed with SYNC_TOKEN_SECRET; claims sub, room, db_name (the room's graph database), scope (canvas:write), iat, exp, aud (markbook-sync), iss. " +
          "Lifetime SYNC_TOKEN_TTL_SECONDS (default 300).",
        security,
        requestBody: { required: true, content: { "application/json": { schema: jsonSchema(issueSyncTokenInput, "input") } } },
        responses: { 200: json(jsonSchema(syncTokenOutput, "output")), ...errors(400, 401, 403, 413) },
      },
    },
  },
};
