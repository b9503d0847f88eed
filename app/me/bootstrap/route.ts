import { bootstrapProfileReply } from "@/server/classroom/reply-cache";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** GET /me/bootstrap: the caller's profile, exactly the contract's bootstrap fields (ETag, 304). */
export const GET = restRoute(({ db, user, request }) => bootstrapProfileReply(request, db, user.id));
