import { z } from "zod";
import { asUser } from "../../db/rls";
import { bootstrapProfileOutput } from "../../identity/bootstrap-profile";
import { queryBoolean } from "../../../lib/rules/input-rules";
import { cachedJsonReply, defineRoute, jsonBody, jsonReply, recordPath } from "../../http/route";
import { classListOutput, classOutput, listEnrolledClasses, listTaughtClasses, schoolClassListOutput, setClassTeachers } from "../classes";
import { addStudentToClass, addStudentToClassBody, classStudentsOutput, enrollmentOutput } from "../enrollments";
import { bootstrapProfileReply, classStudentsReply, schoolClassesReply, schoolStudentsReply } from "../reply-cache";
import { schoolStudentsOutput } from "../school-students";

/** The classroom supporting endpoints: the caller's profile, classes and their students (the timetables' list is an operation). */

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

export const listTaughtClassesRoute = defineRoute({
  method: "GET",
  path: "/database/timetable/classes/teaching",
  operationId: "listTaughtClasses",
  tags,
  summary: "Classes the caller teaches (main teacher, or in an active timetable)",
  auth: "bearer",
  replies: { 200: jsonReply(classListOutput, "OK") },
  errors: {},
  handler: ({ db, user }) => asUser(db, user.id, (tx) => listTaughtClasses(tx, user.id)),
});

export const listEnrolledClassesRoute = defineRoute({
  method: "GET",
  path: "/database/timetable/classes/enrolled",
  operationId: "listEnrolledClasses",
  tags,
  summary: "Classes the caller is actively enrolled in",
  auth: "bearer",
  replies: { 200: jsonReply(classListOutput, "OK") },
  errors: {},
  handler: ({ db, user }) => asUser(db, user.id, (tx) => listEnrolledClasses(tx, user.id)),
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

export const addStudentToClassRoute = defineRoute({
  method: "POST",
  path: "/database/timetable/classes/{class_id}/students",
  operationId: "addStudentToClass",
  tags,
  summary: "Add a student of the school to the class (school admins)",
  description: "Idempotent: adding an enrolled student changes nothing; an inactive enrollment becomes active again.",
  auth: "bearer",
  params: classIdPath,
  body: jsonBody(addStudentToClassBody, { example: '{"student_id": "…"}' }),
  replies: { 200: jsonReply(enrollmentOutput, "The (active) enrollment") },
  errors: { 400: invalid, 403: "Outside the caller's scope or role", 404: "Not found, or outside the caller's scope" },
  handler: ({ db, user, params, body }) =>
    asUser(db, user.id, (tx) => addStudentToClass(tx, user.id, { classId: params.class_id, studentId: body.student_id })),
});

/** Body of PUT /database/timetable/classes/{class_id}/teachers. */
const setClassTeachersBody = z.object({
  teacher_id: z.uuid("teacher_id must be a user id").nullable().meta({ description: "The main teacher, or null for none" }),
  other_teacher_ids: z
    .array(z.uuid("other_teacher_ids must hold user ids"))
    .max(50, "A class can have at most 50 other teachers")
    .default([])
    .meta({ description: "Everyone else who teaches the class (replaces the list it had)" }),
});

export const setClassTeachersRoute = defineRoute({
  method: "PUT",
  path: "/database/timetable/classes/{class_id}/teachers",
  operationId: "setClassTeachers",
  tags,
  summary: "Set a class's main teacher and other teachers (school admins)",
  description:
    "Replaces the class's teachers: teacher_id is the main teacher (null: none), other_teacher_ids everyone else who teaches it. " +
    "Each must be staff of the class's school (400 otherwise). Every teacher of a class sees it among the classes they teach and can start its batches.",
  auth: "bearer",
  params: classIdPath,
  body: jsonBody(setClassTeachersBody, { example: '{"teacher_id": "…", "other_teacher_ids": ["…"]}' }),
  replies: { 200: jsonReply(classOutput, "The class with its teachers") },
  errors: { 400: invalid, 403: "Not a school admin of the class's school", 404: "Not found, or outside the caller's scope" },
  handler: ({ db, user, params, body }) =>
    asUser(db, user.id, (tx) => setClassTeachers(tx, user.id, { classId: params.class_id, teacherId: body.teacher_id, otherTeacherIds: body.other_teacher_ids })),
});

/** After the profile (bootstrapProfileRoute) and the timetables' list (an operation: server/classroom/timetable-operations.ts). */
export const classRoutes = [
  listSchoolClassesRoute,
  listTaughtClassesRoute,
  listEnrolledClassesRoute,
  listSchoolStudentsRoute,
  listClassStudentsRoute,
  addStudentToClassRoute,
  setClassTeachersRoute,
];
