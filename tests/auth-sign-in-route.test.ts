import crypto from "node:crypto";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { KNOWN_DEVICE_COOKIE } from "../server/sign-in/known-device";
import { sessionCookieName } from "../server/auth/next-auth";
import { accountThrottle, countFailure, throttleRules } from "../server/auth/sign-in-throttle";
import { withSignInResponse } from "../server/sign-in/sign-in-response";
import { asService } from "../server/db/rls";
import { createUser } from "../server/identity/users";
import { CLIENT_ADDRESS_HEADER } from "../server/auth/client-address";
import { describeOnEachDatabase } from "./support/database";
import { nextAuthRoute } from "./support/next-auth-route";

const ORIGIN = "http://localhost:3205";
const PASSWORD = "the right password";

/** The cookies a response sets, as name=value pairs a browser sends back. */
const setCookies = (response: Response) => response.headers.getSetCookie().map((cookie) => cookie.split(";")[0]!);

/**
 * A sign-in as the sign-in page makes it: next-auth's CSRF token first, then the credentials callback
 * with `json: true` (what `signIn("credentials", { redirect: false })` posts), through the route's
 * wrapper that adds the known-device cookie or turns a throttled refusal into 429.
 */
async function signIn(email: string, password: string, { address = "192.0.2.10", cookies = [] as string[] } = {}) {
  const csrf = await nextAuthRoute(new Request(`${ORIGIN}/api/auth/csrf`, { headers: { host: "localhost:3205" } }), "csrf");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const cookie = [...setCookies(csrf), ...cookies].join("; ");
  const request = new Request(`${ORIGIN}/api/auth/callback/credentials`, {
    method: "POST",
    headers: { host: "localhost:3205", "content-type": "application/x-www-form-urlencoded", cookie, [CLIENT_ADDRESS_HEADER]: address },
    body: new URLSearchParams({ email, password, csrfToken, callbackUrl: `${ORIGIN}/templates`, json: "true" }),
  });
  const response = await withSignInResponse(() => nextAuthRoute(request, "callback/credentials"));
  const { url } = (await response.json()) as { url: string };
  return {
    status: response.status,
    retryAfter: response.headers.get("retry-after"),
    // What signIn() hands to the page: the error of the answer's URL.
    error: new URL(url).searchParams.get("error"),
    cookies: setCookies(response),
  };
}

describeOnEachDatabase("the sign-in page's credentials callback", (database) => {
  let email: string;

  beforeAll(async () => {
    email = `page.${crypto.randomBytes(4).toString("hex")}@example.org`;
    await asService(database().db, (tx) => createUser(tx, { email, password: PASSWORD, fullName: "Page Person" }));
  });

  /** Failures counted as they are at a sign-in, up to the account's lock (the delays are tested with a moved clock). */
  const lockAccount = async (target: string) => {
    for (let failure = 0; failure < throttleRules.account.lockAfter; failure += 1) await countFailure(database().db, [accountThrottle(target)], Date.now());
  };
  /** Retry-After counts down from the lock's 900 s while the test runs: a busy machine may take a few. */
  const lockRetryAfter = expect.stringMatching(/^(89\d|900)$/);

  it("signs in with the right password, setting the session and the known-device cookies", async () => {
    const answer = await signIn(email, PASSWORD);
    expect(answer).toMatchObject({ status: 200, error: null, retryAfter: null });
    expect(answer.cookies.some((cookie) => cookie.startsWith(`${sessionCookieName}=`))).toBe(true);
    expect(answer.cookies.some((cookie) => cookie.startsWith(`${KNOWN_DEVICE_COOKIE}=`))).toBe(true);
  });

  it("answers a wrong password 401 CredentialsSignin, as before", async () => {
    expect(await signIn(email, "wrong password")).toMatchObject({ status: 401, error: "CredentialsSignin", retryAfter: null, cookies: [] });
  });

  it("answers a locked account 429 with Retry-After and the sentence, even for the right password, but lets a known device in", async () => {
    const device = (await signIn(email, PASSWORD)).cookies.find((cookie) => cookie.startsWith(`${KNOWN_DEVICE_COOKIE}=`))!;
    await lockAccount(email);
    const locked = await signIn(email, PASSWORD);
    expect(locked).toMatchObject({ status: 429, retryAfter: lockRetryAfter, cookies: [] });
    expect(locked.error).toMatch(/^Too many sign-in attempts: try again in 15 minutes \(after \d\d:\d\d UTC\)\.$/);
    const known = await signIn(email, PASSWORD, { cookies: [device] });
    expect(known).toMatchObject({ status: 200, error: null });
    expect(known.cookies.some((cookie) => cookie.startsWith(`${sessionCookieName}=`))).toBe(true);
  });

  it("signs in with the account's username too, in any case, and counts its failures against the same account", async () => {
    const { db } = database();
    const person = await asService(db, (tx) =>
      createUser(tx, { email: `named.${crypto.randomBytes(4).toString("hex")}@example.org`, password: PASSWORD, fullName: "Named Person" }),
    );
    expect(await signIn(person.username, PASSWORD)).toMatchObject({ status: 200, error: null });
    expect(await signIn(person.username.toUpperCase(), PASSWORD)).toMatchObject({ status: 200, error: null });
    expect(await signIn(person.username, "wrong password")).toMatchObject({ status: 401, error: "CredentialsSignin" });
    // Guesses by username lock the account by its email as well: two spellings are not two counts.
    await lockAccount(person.email);
    expect(await signIn(person.username, PASSWORD)).toMatchObject({ status: 429, retryAfter: lockRetryAfter });
  });

  it("gives a locked email the same answer whether an account has it or not", { timeout: 240_000 }, async () => {
    const { db } = database();
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[a-z][a-z0-9_-]{0,24}$/), fc.boolean(), async (name, exists) => {
        const target = `${name}.${crypto.randomBytes(3).toString("hex")}@example.org`;
        if (exists) await asService(db, (tx) => createUser(tx, { email: target, password: PASSWORD, fullName: "Some One" }));
        expect(await signIn(target, "a guess")).toMatchObject({ status: 401, error: "CredentialsSignin" });
        await lockAccount(target);
        const answer = await signIn(target, PASSWORD);
        expect({ ...answer, error: answer.error?.replace(/\d\d:\d\d/, "hh:mm") }).toEqual({
          status: 429,
          retryAfter: lockRetryAfter,
          error: "Too many sign-in attempts: try again in 15 minutes (after hh:mm UTC).",
          cookies: [],
        });
      }),
      { numRuns: 6 },
    );
  });
});
