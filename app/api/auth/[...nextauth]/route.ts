import NextAuth from "next-auth";
import { authOptions } from "@/server/sign-in/next-auth";
import { withSignInResponse } from "@/server/sign-in/sign-in-response";

export const dynamic = "force-dynamic";

// next-auth v4 types its App Router handler as `any`; this is its documented shape.
const handler = NextAuth(authOptions) as (request: Request, context: unknown) => Promise<Response>;

/** A sign-in's answer also sets the known-device cookie, or is a 429 with Retry-After when it came too soon. */
const POST = (request: Request, context: unknown) => withSignInResponse(() => handler(request, context));

export { handler as GET, POST };
