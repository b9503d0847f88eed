import { AppError } from "@/server/errors";
import {
  addStudentToClass,
  addStudentToClassBody,
  classStudentsOutput,
  enrollmentOutput,
  listClassStudents,
} from "@/server/classroom/enrollments";
import { validatedReply } from "@/server/classroom/validated-reply";
import { asUser } from "@/server/db/rls";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

type Params = { classId: string };

/** GET /database/timetable/classes/{class_id}/students?include_inactive=: the class's students. */
export const GET = restRoute<Params>(async ({ db, user, params, url }) => {
  const includeInactive = ["true", "1"].includes(url.searchParams.get("include_inactive") ?? "");
  const reply = await asUser(db, user.id, (tx) => listClassStudents(tx, { classId: params.classId, includeInactive }));
  return validatedReply(classStudentsOutput, reply, "GET /database/timetable/classes/{class_id}/students");
});

/** POST /database/timetable/classes/{class_id}/students {student_id}: a school admin adds a student. */
export const POST = restRoute<Params>(async ({ db, user, params, request }) => {
  const body = await request.json().catch(() => {
    throw new AppError("invalid", "The body must be JSON: {\"student_id\": \"…\"}");
  });
  const { student_id } = addStudentToClassBody.parse(body);
  const enrollment = await asUser(db, user.id, (tx) => addStudentToClass(tx, user.id, { classId: params.classId, studentId: student_id }));
  return validatedReply(enrollmentOutput, enrollment, "POST /database/timetable/classes/{class_id}/students");
});
