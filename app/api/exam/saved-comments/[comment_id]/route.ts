import { removeCommentRoute } from "@/server/exam/routes/comment-bank";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const DELETE = nextRoute(removeCommentRoute);
