import { z } from "zod";
import { addStudentToClass, addStudentToClassBody, enrollmentOutput } from "@/server/classroom/enrollments";
import { classStudentsReply } from "@/server/classroom/reply-cache";
import { validatedReply } from "@/server/http/validated-reply";
import { asUser } from "@/server/db/rls";
import { queryBoolean } from "@/server/http/input-rules";
import { readJsonBody } from "@/server/http/request-body";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

type Params = { classId: string };

const listQuery = z.object({ include_inactive: queryBoolean });

/** GET /database/timetable/classes/{class_id}/students?include_inactive=: the class's students (ETag, 304). */
export const GET = restRoute<Params>(({ db, user, params, url, request }) => {
  const { include_inactive = false } = listQuery.parse(Object.fromEntries(url.searchParams));
  return classStudentsReply(request, db, user.id, { classId: params.classId, includeInactive: include_inactive });
});

/** POST /database/timetable/classes/{class_id}/students {student_id}: a school admin adds a student. */
export const POST = restRoute<Params>(async ({ db, user, params, request }) => {
  const body = await readJsonBody(request, { example: '{"student_id": "…"}' });
  const { student_id } = addStudentToClassBody.parse(body);
  const enrollment = await asUser(db, user.id, (tx) => addStudentToClass(tx, user.id, { classId: params.classId, studentId: student_id }));
  return validatedReply(enrollmentOutput, enrollment, "POST /database/timetable/classes/{class_id}/students");
});
