import { AsyncLocalStorage } from "node:async_hooks";

/**
 * What the sign-in adds to next-auth's answer, which its credentials callback cannot say itself: the
 * known-device cookie of a successful sign-in, and for an attempt made too soon, 429 with Retry-After
 * (next-auth answers every refusal 401). The route (app/api/auth/[...nextauth]/route.ts) runs next-auth
 * inside `withSignInResponse`; the callback (server/sign-in/next-auth.ts) writes into `signInResponse()`.
 */
export interface SignInResponseNotes {
  setCookie?: string;
  retryAfterSeconds?: number;
}

const notes = new AsyncLocalStorage<SignInResponseNotes>();

/** The notes of the sign-in request being answered, or undefined outside one. */
export const signInResponse = (): SignInResponseNotes | undefined => notes.getStore();

export async function withSignInResponse(handle: () => Promise<Response>): Promise<Response> {
  const noted: SignInResponseNotes = {};
  const response = await notes.run(noted, handle);
  if (noted.setCookie === undefined && noted.retryAfterSeconds === undefined) return response;
  const headers = new Headers(response.headers);
  if (noted.setCookie !== undefined) headers.append("set-cookie", noted.setCookie);
  if (noted.retryAfterSeconds !== undefined) headers.set("retry-after", String(noted.retryAfterSeconds));
  return new Response(response.body, { status: noted.retryAfterSeconds !== undefined ? 429 : response.status, headers });
}
