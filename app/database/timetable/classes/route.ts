import { listSchoolClasses, schoolClassListOutput } from "@/server/classroom/classes";
import { validatedReply } from "@/server/classroom/validated-reply";
import { asUser } from "@/server/db/rls";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** GET /database/timetable/classes: every class of the caller's school, with total. */
export const GET = restRoute(async ({ db, user }) => {
  const reply = await asUser(db, user.id, (tx) => listSchoolClasses(tx, user.id));
  return validatedReply(schoolClassListOutput, reply, "GET /database/timetable/classes");
});
