import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { boundedTrpcRequest } from "@/server/trpc/body-limit";
import { createContext } from "@/server/trpc/context";
import { appRouter } from "@/server/trpc/root";

// Every call depends on who is asking: never cache or prerender.
export const dynamic = "force-dynamic";

function handler(request: Request): Promise<Response> {
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    // Its body is read through the same bounded reader as REST: 413 as soon as it grows past the limit.
    req: boundedTrpcRequest(request),
    router: appRouter,
    createContext: () => createContext({ headers: request.headers }),
  });
}

export { handler as GET, handler as POST };
