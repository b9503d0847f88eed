import { schoolStudentsReply } from "@/server/classroom/reply-cache";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** GET /database/timetable/classes/school/students: the students of the caller's school, by full_name (ETag, 304). */
export const GET = restRoute(({ db, user, request }) => schoolStudentsReply(request, db, user.id));
