import { listTimetables, listTimetablesOutput } from "@/server/classroom/timetables";
import { asUser } from "@/server/db/rls";
import { validatedReply } from "@/server/http/validated-reply";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** GET /database/timetable/timetables?class_id=&type=&active=: the caller's school's timetables, newest first. */
export const GET = restRoute(async ({ db, user, url }) => {
  const filters = Object.fromEntries(url.searchParams);
  const reply = await asUser(db, user.id, (tx) => listTimetables(tx, user.id, filters));
  return validatedReply(listTimetablesOutput, reply, "GET /database/timetable/timetables");
});
