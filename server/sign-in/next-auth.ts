import type { AuthOptions } from "next-auth";
import CredentialsProvider from "next-auth/providers/credentials";
import { CLIENT_ADDRESS_HEADER } from "../auth/client-address";
import { nextAuthOptions, secureSessionCookie } from "../auth/next-auth";
import { isThrottledError } from "../auth/sign-in-throttle";
import { getDatabase } from "../db/client";
import { logger } from "../logger";
import { signInWithPassword } from "./credentials";
import { knownDeviceCookieIn, knownDeviceSetCookie } from "./known-device";
import { signInResponse } from "./sign-in-response";

/**
 * next-auth's options for its route (app/api/auth/[...nextauth]/route.ts): the session's options
 * (server/auth/next-auth.ts) with the password provider, which checks the credentials
 * (./credentials.ts, finding the user through identity) and notes the known-device cookie or the
 * throttle's wait for the route's answer (./sign-in-response.ts).
 */
export const authOptions: AuthOptions = nextAuthOptions([
  CredentialsProvider({
    name: "Email and password",
    credentials: {
      email: { label: "Email", type: "email" },
      password: { label: "Password", type: "password" },
    },
    async authorize(credentials, request) {
      const headers = (request?.headers ?? {}) as Record<string, string | undefined>;
      try {
        const result = await signInWithPassword((await getDatabase()).db, credentials, {
          clientAddress: headers[CLIENT_ADDRESS_HEADER],
          knownDevices: knownDeviceCookieIn(headers.cookie, secureSessionCookie),
        });
        if (!result) return null;
        const notes = signInResponse();
        if (notes) notes.setCookie = knownDeviceSetCookie(result.knownDevices, secureSessionCookie);
        return result.user;
      } catch (error) {
        if (isThrottledError(error)) {
          // The sentence reaches the sign-in page as next-auth's error; the route makes the answer a 429.
          const notes = signInResponse();
          if (notes) notes.retryAfterSeconds = error.retryAfterSeconds;
          throw new Error(error.message, { cause: error });
        }
        // next-auth would put the message into the redirect URL; keep details in the log.
        logger.error("sign-in failed", error);
        throw new Error("Configuration", { cause: error });
      }
    },
  }),
]);
