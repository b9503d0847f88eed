import { z } from "zod";
import { queryBoolean } from "../../lib/rules/input-rules";
import { recordId } from "../http/record-id";
import { recordPath } from "../http/route";
import { defineOperation } from "../operations/define";
import {
  classListOutput,
  classOutput,
  createSchoolClass,
  createSchoolClassInput,
  listEnrolledClasses,
  listSchoolClasses,
  listTaughtClasses,
  renameClass,
  renameClassInput,
  schoolClassListOutput,
  setClassTeachers,
  setClassTeachersInput,
} from "./classes";
import {
  addStudentToClass,
  classStudentsOutput,
  enrollStudentInput,
  enrollmentOutput,
  listClassStudents,
  listClassStudentsInput,
  removeEnrollment,
} from "./enrollments";
import { listSchoolStaff, schoolStaffOutput } from "./school-staff";
import { classStudentsCache, schoolClassesCache, schoolStudentsCache } from "./reply-cache";
import { listSchoolStudents, schoolStudentsOutput } from "./school-students";

/**
 * Classes and enrollments of the caller's school (`classes.<name>` over tRPC): the lists, and the admin
 * UI's writes. The classes a caller teaches and is enrolled in are also GET /database/timetable/classes/teaching
 * and /enrolled.
 *
 * tRPC takes camelCase inputs (`classId`) where REST takes `{class_id}` in the path and a snake_case
 * body: adding a student and setting a class's teachers over REST are two operations of their own
 * (`addStudentToClass`, `setClassTeachers`, REST only) calling the same domain functions as tRPC's
 * `addStudent` and `setTeachers`, as `people.editPerson` beside `people.edit`.
 *
 * The school's classes, its students and a class's students are answered over REST through the reply
 * cache (ETag, 304): their faces say `cache:` with the rules of ./reply-cache. A class's students over
 * REST take `{class_id}` and `include_inactive` (`listClassStudents`, REST only) beside tRPC's `students`.
 */

const classId = recordId("Class");

/** GET /database/timetable/classes/{class_id}/students: the class in the path, whether ended enrollments count in the query. */
const classStudentsRestInput = recordPath("class_id", "Class").extend({
  include_inactive: queryBoolean.default(false).meta({ description: "Also students whose enrollment ended" }),
});

/** POST /database/timetable/classes/{class_id}/students: the class in the path, the student in the body. */
const addStudentToClassInput = z.object({
  class_id: classId,
  student_id: z.uuid("student_id must be a user id"),
});

/** PUT /database/timetable/classes/{class_id}/teachers: the class in the path, its teachers in the body. */
const setClassTeachersRestInput = z.object({
  class_id: classId,
  teacher_id: z.uuid("teacher_id must be a user id").nullable().meta({ description: "The main teacher, or null for none" }),
  other_teacher_ids: z
    .array(z.uuid("other_teacher_ids must hold user ids"))
    .max(50, "A class can have at most 50 other teachers")
    .default([])
    .meta({ description: "Everyone else who teaches the class (replaces the list it had)" }),
});

const tags = ["classroom"];
const invalid = "Invalid request (see detail)";
const outOfScope = "Not found, or outside the caller's scope";

export const classOperations = {
  list: defineOperation({
    kind: "query",
    output: schoolClassListOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller }) => listSchoolClasses(tx, caller.id),
    rest: {
      method: "GET",
      path: "/database/timetable/classes",
      operationId: "listSchoolClasses",
      tags,
      summary: "Every class of the caller's school, with total",
      description: "Empty (total 0) when the caller has no school.",
      reply: "OK",
      cache: ({ db, caller }) => schoolClassesCache(db, caller.id),
      errors: {},
    },
  }),

  teaching: defineOperation({
    kind: "query",
    output: classListOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller }) => listTaughtClasses(tx, caller.id),
    rest: {
      method: "GET",
      path: "/database/timetable/classes/teaching",
      operationId: "listTaughtClasses",
      tags,
      summary: "Classes the caller teaches (main teacher, or in an active timetable)",
      reply: "OK",
      errors: {},
    },
  }),

  enrolled: defineOperation({
    kind: "query",
    output: classListOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller }) => listEnrolledClasses(tx, caller.id),
    rest: {
      method: "GET",
      path: "/database/timetable/classes/enrolled",
      operationId: "listEnrolledClasses",
      tags,
      summary: "Classes the caller is actively enrolled in",
      reply: "OK",
      errors: {},
    },
  }),

  schoolStudents: defineOperation({
    kind: "query",
    output: schoolStudentsOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller }) => listSchoolStudents(tx, caller.id),
    rest: {
      method: "GET",
      path: "/database/timetable/classes/school/students",
      operationId: "listSchoolStudents",
      tags,
      summary: "Students of the caller's school, ordered by full_name",
      reply: "OK",
      cache: ({ db, caller }) => schoolStudentsCache(db, caller.id),
      errors: {},
    },
  }),

  /** The school's teaching staff: the teacher choices of the timetable and class forms. */
  schoolStaff: defineOperation({
    kind: "query",
    output: schoolStaffOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller }) => listSchoolStaff(tx, caller.id),
  }),

  students: defineOperation({
    kind: "query",
    input: listClassStudentsInput,
    output: classStudentsOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, input }) => listClassStudents(tx, input),
  }),

  create: defineOperation({
    kind: "mutation",
    input: createSchoolClassInput,
    output: classOutput.omit({ teacher_name: true, other_teachers: true }),
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, caller, input }) => createSchoolClass(tx, caller.id, input),
  }),

  rename: defineOperation({
    kind: "mutation",
    input: renameClassInput,
    output: classOutput,
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, caller, input }) => renameClass(tx, caller.id, input),
  }),

  /** The main teacher and the other teachers of a class (school admins). */
  setTeachers: defineOperation({
    kind: "mutation",
    input: setClassTeachersInput,
    output: classOutput,
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, caller, input }) => setClassTeachers(tx, caller.id, input),
  }),

  addStudent: defineOperation({
    kind: "mutation",
    input: enrollStudentInput,
    output: enrollmentOutput,
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, caller, input }) => addStudentToClass(tx, caller.id, input),
  }),

  removeStudent: defineOperation({
    kind: "mutation",
    input: enrollStudentInput,
    output: enrollmentOutput,
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, caller, input }) => removeEnrollment(tx, caller.id, input),
  }),

  /** `students` with the class in the path (REST only). */
  listClassStudents: defineOperation({
    kind: "query",
    input: classStudentsRestInput,
    output: classStudentsOutput,
    transaction: "as-user",
    role: "signed-in",
    trpc: false,
    handler: ({ tx, input }) => listClassStudents(tx, { classId: input.class_id, includeInactive: input.include_inactive }),
    rest: {
      method: "GET",
      path: "/database/timetable/classes/{class_id}/students",
      operationId: "listClassStudents",
      tags,
      summary: "Students of a class, by full_name",
      reply: "OK",
      cache: ({ db, caller, input }) => classStudentsCache(db, caller.id, { classId: input.class_id, includeInactive: input.include_inactive }),
      errors: { 400: invalid, 404: outOfScope },
    },
  }),

  /** `addStudent` with the class in the path (REST only). */
  addStudentToClass: defineOperation({
    kind: "mutation",
    input: addStudentToClassInput,
    output: enrollmentOutput,
    transaction: "as-user",
    role: "school-admin",
    trpc: false,
    handler: ({ tx, caller, input }) => addStudentToClass(tx, caller.id, { classId: input.class_id, studentId: input.student_id }),
    rest: {
      method: "POST",
      path: "/database/timetable/classes/{class_id}/students",
      operationId: "addStudentToClass",
      tags,
      summary: "Add a student of the school to the class (school admins)",
      description: "Idempotent: adding an enrolled student changes nothing; an inactive enrollment becomes active again.",
      reply: "The (active) enrollment",
      example: '{"student_id": "…"}',
      errors: { 400: invalid, 403: "Outside the caller's scope or role", 404: outOfScope },
    },
  }),

  /** `setTeachers` with the class in the path and the body in snake_case (REST only). */
  setClassTeachers: defineOperation({
    kind: "mutation",
    input: setClassTeachersRestInput,
    output: classOutput,
    transaction: "as-user",
    role: "school-admin",
    trpc: false,
    handler: ({ tx, caller, input }) =>
      setClassTeachers(tx, caller.id, { classId: input.class_id, teacherId: input.teacher_id, otherTeacherIds: input.other_teacher_ids }),
    rest: {
      method: "PUT",
      path: "/database/timetable/classes/{class_id}/teachers",
      operationId: "setClassTeachers",
      tags,
      summary: "Set a class's main teacher and other teachers (school admins)",
      description:
        "Replaces the class's teachers: teacher_id is the main teacher (null: none), other_teacher_ids everyone else who teaches it. " +
        "Each must be staff of the class's school (400 otherwise). Every teacher of a class sees it among the classes they teach and can start its batches.",
      reply: "The class with its teachers",
      example: '{"teacher_id": "…", "other_teacher_ids": ["…"]}',
      errors: { 400: invalid, 403: "Not a school admin of the class's school", 404: outOfScope },
    },
  }),
};
