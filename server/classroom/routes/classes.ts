import { z } from "zod";
import { bootstrapProfileOutput } from "../../identity/bootstrap-profile";
import { queryBoolean } from "../../../lib/rules/input-rules";
import { cachedJsonReply, defineRoute, recordPath } from "../../http/route";
import { schoolClassListOutput } from "../classes";
import { classStudentsOutput } from "../enrollments";
import { bootstrapProfileReply, classStudentsReply, schoolClassesReply, schoolStudentsReply } from "../reply-cache";
import { schoolStudentsOutput } from "../school-students";

/**
 * The classroom routes answered through the reply cache (ETag, 304), which an operation's REST face does
 * not say: the caller's profile, the school's classes and students, a class's students. The rest of the
 * classes' routes and the timetables' list are operations (server/classroom/class-operations.ts,
 * timetable-operations.ts); server/rest-routes.ts puts them all in the document's order.
 */

const tags = ["classroom"];
const invalid = "Invalid request (see detail)";

export const bootstrapProfileRoute = defineRoute({
  method: "GET",
  path: "/me/bootstrap",
  operationId: "getBootstrapProfile",
  tags,
  summary: "The caller's bootstrap profile",
  auth: "bearer",
  replies: { 200: cachedJsonReply(bootstrapProfileOutput, "OK") },
  errors: {},
  handler: ({ request, db, user }) => bootstrapProfileReply(request, db, user.id),
});

export const listSchoolClassesRoute = defineRoute({
  method: "GET",
  path: "/database/timetable/classes",
  operationId: "listSchoolClasses",
  tags,
  summary: "Every class of the caller's school, with total",
  description: "Empty (total 0) when the caller has no school.",
  auth: "bearer",
  replies: { 200: cachedJsonReply(schoolClassListOutput, "OK") },
  errors: {},
  handler: ({ request, db, user }) => schoolClassesReply(request, db, user.id),
});

export const listSchoolStudentsRoute = defineRoute({
  method: "GET",
  path: "/database/timetable/classes/school/students",
  operationId: "listSchoolStudents",
  tags,
  summary: "Students of the caller's school, ordered by full_name",
  auth: "bearer",
  replies: { 200: cachedJsonReply(schoolStudentsOutput, "OK") },
  errors: {},
  handler: ({ request, db, user }) => schoolStudentsReply(request, db, user.id),
});

const classIdPath = recordPath("class_id", "Class");

export const listClassStudentsRoute = defineRoute({
  method: "GET",
  path: "/database/timetable/classes/{class_id}/students",
  operationId: "listClassStudents",
  tags,
  summary: "Students of a class, by full_name",
  auth: "bearer",
  params: classIdPath,
  query: z.object({ include_inactive: queryBoolean.default(false).meta({ description: "Also students whose enrollment ended" }) }),
  replies: { 200: cachedJsonReply(classStudentsOutput, "OK") },
  errors: { 400: invalid, 404: "Not found, or outside the caller's scope" },
  handler: ({ request, db, user, params, query }) =>
    classStudentsReply(request, db, user.id, { classId: params.class_id, includeInactive: query.include_inactive }),
});
