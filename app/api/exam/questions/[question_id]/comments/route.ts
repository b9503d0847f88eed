import { listQuestionCommentsRoute, saveCommentRoute } from "@/server/exam/routes/comment-bank";
import { nextRoute } from "@/server/http/route";

export const dynamic = "force-dynamic";

export const GET = nextRoute(listQuestionCommentsRoute);
export const POST = nextRoute(saveCommentRoute);
