import type { AuthOptions, DefaultSession } from "next-auth";
import { env } from "../env";
import { logger } from "../logger";
import { serverSecret } from "./secret";

declare module "next-auth" {
  interface Session {
    user: { id: string } & DefaultSession["user"];
    /** When the person signed in (ms since the epoch): see SIGNED_IN_AT_CLAIM. */
    signed_in_at?: number;
  }
}

/**
 * next-auth v4 reads its own origin from process.env on every request: NEXTAUTH_URL if set, else the
 * request's (X-Forwarded-)Host when AUTH_TRUST_HOST is set, else it assumes http://localhost:3000, which
 * breaks sign-in redirects on any other port. This is the one place that sets them, from our config:
 * - APP_URL configured (a deployment behind a proxy): that fixed public origin, Host headers are ignored;
 * - APP_URL not set (embedded, dev, tests on any port): the origin the browser used, so localhost:3100
 *   and 127.0.0.1:3100 both work.
 */
function configureNextAuthOrigin(): void {
  const { APP_URL } = env();
  if (APP_URL) process.env.NEXTAUTH_URL = new URL("/api/auth", APP_URL).toString();
  else process.env.AUTH_TRUST_HOST = "true";
}
configureNextAuthOrigin();

/**
 * Pinned by configuration rather than guessed per request from X-Forwarded-Proto, so that the session
 * cookie always has one name: `__Secure-next-auth.session-token` under an https APP_URL, else
 * `next-auth.session-token`.
 */
export const secureSessionCookie = env().appUrl.startsWith("https://");
export const sessionCookieName = `${secureSessionCookie ? "__Secure-" : ""}next-auth.session-token`;

/** The session token's claim with the time of sign-in (ms): next-auth renews `iat` whenever it re-issues the cookie. */
export const SIGNED_IN_AT_CLAIM = "signed_in_at";

/**
 * next-auth's options around these providers: the session (a signed JWT cookie), its secret, its cookie's
 * name, its claims. Reading a session needs no provider (`sessionOptions`); the sign-in route adds the
 * password provider (server/sign-in/next-auth.ts), which stands above identity.
 */
export function nextAuthOptions(providers: AuthOptions["providers"]): AuthOptions {
  return {
    // A getter: the secret is read on the first request, so importing this module (as `next build` does)
    // needs no secret and creates no file.
    get secret() {
      return serverSecret("AUTH_SECRET");
    },
    useSecureCookies: secureSessionCookie,
    session: { strategy: "jwt", maxAge: 30 * 24 * 60 * 60 },
    pages: { signIn: "/signin" },
    providers,
    callbacks: {
      jwt({ token, user }) {
        // When the person signed in (kept as the token is renewed): a password changed after it signs the session out.
        if (user) Object.assign(token, { sub: user.id, [SIGNED_IN_AT_CLAIM]: Date.now() });
        return token;
      },
      session({ session, token }) {
        if (token.sub) session.user = { ...session.user, id: token.sub };
        const signedInAt = token[SIGNED_IN_AT_CLAIM] ?? (typeof token.iat === "number" ? token.iat * 1000 : undefined);
        if (typeof signedInAt === "number") session[SIGNED_IN_AT_CLAIM] = signedInAt;
        return session;
      },
    },
    logger: {
      error: (code, metadata) => logger.error(`next-auth ${code}`, metadata),
      warn: (code) => logger.warn(`next-auth ${code}`),
      debug: () => {},
    },
  };
}

/** The options that read a session (server/auth/session.ts): no provider, since nobody signs in through them. */
export const sessionOptions: AuthOptions = nextAuthOptions([]);
