import { createRequire } from "node:module";
import path from "node:path";
import type { AuthOptions } from "next-auth";
import { NextRequest } from "next/server";
import { authOptions } from "../../server/sign-in/next-auth";

// next-auth's package exports do not list its core and its adapter's helpers: loaded by their files.
const load = createRequire(import.meta.url);
/** next-auth/core's request (RequestInternal) and answer, as far as this file uses them. */
interface InternalRequest {
  body?: Record<string, string>;
  query: Record<string, string>;
  cookies: Record<string, string>;
  headers: Record<string, string>;
  method: string;
  action: string;
  providerId?: string;
  error?: string;
}
interface InternalResponse {
  status?: number;
}
const { AuthHandler } = load(path.resolve("node_modules/next-auth/core/index.js")) as {
  AuthHandler: (params: { req: InternalRequest; options: AuthOptions }) => Promise<InternalResponse>;
};
const utils = load(path.resolve("node_modules/next-auth/next/utils.js")) as {
  getBody: (request: Request) => Promise<Record<string, string> | undefined>;
  toResponse: (internal: InternalResponse) => Response;
};

/**
 * next-auth's App Router adapter (NextAuthRouteHandler in next-auth/next) for a test: the same
 * AuthHandler call with the request's body, query, cookies and headers, and the same JSON answer
 * (`{url}`) that the sign-in page's `signIn("credentials", {redirect: false})` reads. The adapter itself
 * reads cookies and headers through next/headers, which needs Next's request store; this reads them from
 * the request. `path` is what follows /api/auth/ ("csrf", "callback/credentials").
 */
export async function nextAuthRoute(request: Request, path: string): Promise<Response> {
  const [action, providerId] = path.split("/");
  const nextRequest = new NextRequest(request);
  const query = Object.fromEntries(nextRequest.nextUrl.searchParams);
  const body = await utils.getBody(nextRequest);
  const internal = await AuthHandler({
    req: {
      body,
      query,
      cookies: Object.fromEntries(nextRequest.cookies.getAll().map((cookie) => [cookie.name, cookie.value])),
      headers: Object.fromEntries(request.headers),
      method: request.method,
      action: action!,
      providerId,
      error: query.error ?? providerId,
    },
    options: authOptions,
  });
  const response = utils.toResponse(internal);
  const redirect = response.headers.get("Location");
  if (body?.json === "true" && redirect) {
    response.headers.delete("Location");
    response.headers.set("Content-Type", "application/json");
    return new Response(JSON.stringify({ url: redirect }), { status: internal.status, headers: response.headers });
  }
  return response;
}
