import { schoolClassesReply } from "@/server/classroom/reply-cache";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** GET /database/timetable/classes: every class of the caller's school, with total (ETag, 304). */
export const GET = restRoute(({ db, user, request }) => schoolClassesReply(request, db, user.id));
