import { classListOutput, listTaughtClasses } from "@/server/classroom/classes";
import { validatedReply } from "@/server/http/validated-reply";
import { asUser } from "@/server/db/rls";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** GET /database/timetable/classes/teaching: the classes the caller teaches. */
export const GET = restRoute(async ({ db, user }) => {
  const reply = await asUser(db, user.id, (tx) => listTaughtClasses(tx, user.id));
  return validatedReply(classListOutput, reply, "GET /database/timetable/classes/teaching");
});
