import crypto from "node:crypto";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { signInWithPassword } from "../server/sign-in/credentials";
import { knownDeviceOf } from "../server/sign-in/known-device";
import { chooseOwnPasswordThrottled } from "../server/auth/password-change";
import { accountThrottle, countFailure, throttleRules } from "../server/auth/sign-in-throttle";
import { asService } from "../server/db/rls";
import { createUser } from "../server/identity/users";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";

const PASSWORD = "the right password";
const MINUTE = 60_000;

describeOnEachDatabase("password guessing is throttled in the database", (database) => {
  let email: string;
  let userId: string;
  /** The controlled clock: every attempt says when it happens. */
  let now = Date.parse("2026-12-05T18:00:00Z");

  const attempt = (password: string, context: { email?: string; address?: string; knownDevices?: string | null } = {}) =>
    signInWithPassword(database().db, { email: context.email ?? email, password }, { now, clientAddress: context.address ?? "192.0.2.10", knownDevices: context.knownDevices });
  /** The outcome as the person sees it: signed in, refused, or told to wait (and how long). */
  const outcome = async (password: string, context: Parameters<typeof attempt>[1] = {}) => {
    try {
      return (await attempt(password, context)) ? "signed in" : "refused";
    } catch (error) {
      return { status: (error as { status: number }).status, message: (error as Error).message, retryAfter: (error as { retryAfterSeconds: number }).retryAfterSeconds };
    }
  };

  const newAccount = async () => {
    email = `guess.${crypto.randomBytes(4).toString("hex")}@example.org`;
    userId = (await asService(database().db, (tx) => createUser(tx, { email, password: PASSWORD, fullName: "Gus Sed" }))).id;
  };

  beforeAll(newAccount);

  it("lets five failures through, then makes each next attempt wait 2^(n-5) s, and says until when", async () => {
    await newAccount();
    for (let failure = 1; failure <= 5; failure += 1) expect(await outcome("wrong")).toBe("refused");
    // Five failures: the next attempt waits 1 s, even with the right password.
    expect(await outcome(PASSWORD)).toEqual({ status: 429, retryAfter: 1, message: "Too many sign-in attempts: try again in 1 second (after 18:01 UTC)." });
    now += 1000;
    expect(await outcome("wrong")).toBe("refused"); // the sixth failure: 2 s
    now += 1000;
    expect(await outcome("wrong")).toMatchObject({ status: 429, retryAfter: 1 });
    now += 1000;
    expect(await outcome("wrong")).toBe("refused"); // the seventh: 4 s
    expect(await outcome(PASSWORD)).toMatchObject({ status: 429, retryAfter: 4 });
    now += 4000;
    // Once the wait is over, the right password signs in and forgets the failures.
    expect(await outcome(PASSWORD)).toBe("signed in");
    for (let failure = 1; failure <= 5; failure += 1) expect(await outcome("wrong")).toBe("refused");
    now += 60 * MINUTE;
  });

  it("locks the account for 15 minutes after 20 failures, whatever the password, and the lock ends", { timeout: 120_000 }, async () => {
    await newAccount();
    // A patient guesser waits out each delay.
    for (let failures = 0; failures < 20; ) {
      const answer = await outcome("wrong");
      if (answer === "refused") failures += 1;
      else if (typeof answer === "object") now += answer.retryAfter * 1000;
    }
    const locked = await outcome(PASSWORD, { address: "198.51.100.7" });
    expect(locked).toMatchObject({ status: 429, retryAfter: 15 * 60, message: expect.stringMatching(/^Too many sign-in attempts: try again in 15 minutes \(after \d\d:\d\d UTC\)\.$/) });
    now += 15 * MINUTE - 1000;
    expect(await outcome(PASSWORD)).toMatchObject({ status: 429, retryAfter: 1 });
    now += 1000;
    expect(await outcome(PASSWORD)).toBe("signed in");
    now += 60 * MINUTE;
  });

  it("keeps the owner's right password working from a device that signed in before, while the account is locked", { timeout: 120_000 }, async () => {
    await newAccount();
    const device = (await attempt(PASSWORD))!.knownDevices;
    expect(knownDeviceOf(device, userId)).toEqual(expect.any(String));
    // Someone else guesses until the account is locked for everyone without the cookie.
    for (let failures = 0; failures < 20; ) {
      const answer = await outcome(`guess ${failures}`, { address: "203.0.113.66" });
      if (answer === "refused") failures += 1;
      else if (typeof answer === "object") now += answer.retryAfter * 1000;
    }
    expect(await outcome(PASSWORD, { address: "192.0.2.99" })).toMatchObject({ status: 429 });
    // A forged cookie is no cookie: the account's lock holds.
    const forged = device.replace(/.$/, (last) => (last === "A" ? "B" : "A"));
    expect(await outcome(PASSWORD, { knownDevices: forged })).toMatchObject({ status: 429 });
    expect(await outcome(PASSWORD, { address: "192.0.2.99", knownDevices: device })).toBe("signed in");
    // The known device has its own count: wrong passwords from it wait on it alone.
    for (let failure = 1; failure <= 5; failure += 1) expect(await outcome("wrong", { knownDevices: device })).toBe("refused");
    expect(await outcome(PASSWORD, { knownDevices: device })).toMatchObject({ status: 429, retryAfter: 1 });
    now += 60 * MINUTE;
  });

  it("slows one address trying one password on many accounts", { timeout: 120_000 }, async () => {
    const address = "198.51.100.200";
    for (let account = 0; account < 50; account += 1) {
      expect(await outcome("Summer2026!", { email: `spray.${account}.${crypto.randomBytes(3).toString("hex")}@example.org`, address })).toBe("refused");
    }
    expect(await outcome(PASSWORD, { address })).toMatchObject({ status: 429, retryAfter: 1 });
    // The real person elsewhere is not affected.
    expect(await outcome(PASSWORD, { address: "192.0.2.123" })).toBe("signed in");
    now += 2 * 60 * MINUTE;
  });

  it("counts wrong current passwords on 'choose your password' against the account, with the same rule", async () => {
    const { db } = database();
    await newAccount();
    const choose = (current: string) =>
      chooseOwnPasswordThrottled(db, userId, { current_password: current, new_password: "a new password of mine" }, now).then(
        () => "changed",
        (error: Error & { code?: string; retryAfterSeconds?: number }) => ({ code: error.code, message: error.message, retryAfter: error.retryAfterSeconds }),
      );
    for (let failure = 1; failure <= 5; failure += 1) {
      expect(await choose("not it")).toEqual({ code: "invalid", message: "The current password is not right", retryAfter: undefined });
    }
    expect(await choose(PASSWORD)).toMatchObject({ code: "rate_limited", retryAfter: 1, message: expect.stringMatching(/^Too many sign-in attempts/) });
    // A sign-in with the account's email waits too: it is one count.
    expect(await outcome(PASSWORD)).toMatchObject({ status: 429 });
    // Through tRPC, a locked account's session is told to wait.
    for (let failure = 0; failure < throttleRules.account.lockAfter; failure += 1) await countFailure(db, [accountThrottle(email)], Date.now());
    await expect(createCaller({ db, user: { id: userId } }).me.choosePassword({ current_password: PASSWORD, new_password: "another new one" })).rejects.toMatchObject({
      code: "TOO_MANY_REQUESTS",
      message: expect.stringMatching(/^Too many sign-in attempts: try again in 15 minutes/),
    });
    now += 2 * 60 * MINUTE;
  });

  it("answers the same for an account that does not exist as for one that does: never which", async () => {
    const { db } = database();
    await fc.assert(
      fc.asyncProperty(fc.stringMatching(/^[a-z][a-z0-9_-]{0,20}$/), fc.integer({ min: 1, max: 8 }), async (name, failures) => {
        now += 24 * 60 * MINUTE; // a fresh day: every count is forgotten
        const known = `${name}.${crypto.randomBytes(3).toString("hex")}@example.org`;
        const unknown = `${name}.${crypto.randomBytes(3).toString("hex")}@example.org`;
        await asService(db, (tx) => createUser(tx, { email: known, password: PASSWORD, fullName: "Some One" }));
        const answers = async (target: string) => {
          const seen = [];
          for (let round = 0; round < failures; round += 1) seen.push(await outcome("not the password", { email: target, address: `10.0.${round}.1` }));
          return seen;
        };
        expect(await answers(known)).toEqual(await answers(unknown));
      }),
      { numRuns: 6 },
    );
  }, 240_000);
});
