import { listSchoolStudents, schoolStudentsOutput } from "@/server/classroom/school-students";
import { validatedReply } from "@/server/classroom/validated-reply";
import { asUser } from "@/server/db/rls";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** GET /database/timetable/classes/school/students: the students of the caller's school, by full_name. */
export const GET = restRoute(async ({ db, user }) => {
  const reply = await asUser(db, user.id, (tx) => listSchoolStudents(tx, user.id));
  return validatedReply(schoolStudentsOutput, reply, "GET /database/timetable/classes/school/students");
});
