import NextAuth from "next-auth";
import { authOptions } from "@/server/auth/next-auth";

export const dynamic = "force-dynamic";

// next-auth v4 types its App Router handler as `any`; this is its documented shape.
const handler = NextAuth(authOptions) as (request: Request, context: unknown) => Promise<Response>;

export { handler as GET, handler as POST };
