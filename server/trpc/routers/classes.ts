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
} from "../../classroom/classes";
import {
  addStudentToClass,
  classStudentsOutput,
  enrollStudentInput,
  enrollmentOutput,
  listClassStudents,
  listClassStudentsInput,
  removeEnrollment,
} from "../../classroom/enrollments";
import { listSchoolStaff, schoolStaffOutput } from "../../classroom/school-staff";
import { listSchoolStudents, schoolStudentsOutput } from "../../classroom/school-students";
import { router, userProcedure } from "../init";

/** Classes and enrollments of the caller's school: the REST lists plus the admin UI's writes. */
export const classesRouter = router({
  list: userProcedure
    .output(schoolClassListOutput)
    .query(({ ctx }) => ctx.asUser((tx) => listSchoolClasses(tx, ctx.user.id))),

  teaching: userProcedure
    .output(classListOutput)
    .query(({ ctx }) => ctx.asUser((tx) => listTaughtClasses(tx, ctx.user.id))),

  enrolled: userProcedure
    .output(classListOutput)
    .query(({ ctx }) => ctx.asUser((tx) => listEnrolledClasses(tx, ctx.user.id))),

  schoolStudents: userProcedure
    .output(schoolStudentsOutput)
    .query(({ ctx }) => ctx.asUser((tx) => listSchoolStudents(tx, ctx.user.id))),

  /** The school's teaching staff: the teacher choices of the timetable and class forms. */
  schoolStaff: userProcedure
    .output(schoolStaffOutput)
    .query(({ ctx }) => ctx.asUser((tx) => listSchoolStaff(tx, ctx.user.id))),

  students: userProcedure
    .input(listClassStudentsInput)
    .output(classStudentsOutput)
    .query(({ ctx, input }) => ctx.asUser((tx) => listClassStudents(tx, input))),

  create: userProcedure
    .input(createSchoolClassInput)
    .output(classOutput.omit({ teacher_name: true, other_teachers: true }))
    .mutation(({ ctx, input }) => ctx.asUser((tx) => createSchoolClass(tx, ctx.user.id, input))),

  rename: userProcedure
    .input(renameClassInput)
    .output(classOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => renameClass(tx, ctx.user.id, input))),

  /** The main teacher and the other teachers of a class (school admins). */
  setTeachers: userProcedure
    .input(setClassTeachersInput)
    .output(classOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => setClassTeachers(tx, ctx.user.id, input))),

  addStudent: userProcedure
    .input(enrollStudentInput)
    .output(enrollmentOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => addStudentToClass(tx, ctx.user.id, input))),

  removeStudent: userProcedure
    .input(enrollStudentInput)
    .output(enrollmentOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => removeEnrollment(tx, ctx.user.id, input))),
});
