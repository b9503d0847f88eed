import crypto from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as bootstrapRoute } from "../app/me/bootstrap/route";
import { signUserToken } from "../server/auth/tokens";
import { asService, asUser } from "../server/db/rls";
import { createPersonalAccessToken } from "../server/identity/personal-tokens";
import { createUser } from "../server/identity/users";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { SignJWT } from "jose";

/** A token as another version of Markbook or another tool signs it: only `iat` in whole seconds, or none. */
function tokenIssuedAt(userId: string, iat: number | undefined): Promise<string> {
  const jwt = new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(userId).setExpirationTime("5m");
  if (iat !== undefined) jwt.setIssuedAt(iat);
  return jwt.sign(new TextEncoder().encode(process.env.AUTH_SECRET));
}

const bootstrap = (token: string) => bootstrapRoute(new Request("http://localhost/me/bootstrap", { headers: { authorization: `Bearer ${token}` } }));

async function expectStatus(token: string, status: number, detail?: RegExp) {
  const response = await bootstrap(token);
  expect(response.status).toBe(status);
  if (detail) expect((await response.json()).detail).toMatch(detail);
}

describeOnEachDatabase("a password change ends the bearer credentials issued before it", (database) => {
  let school: School;
  const admin = () => createCaller({ db: database().db, user: { id: school.admin.id } });
  const person = async () => {
    const email = `bearer.${crypto.randomBytes(4).toString("hex")}@example.org`;
    const user = await admin().people.add({ full_name: "Bea Rer", email, role: "teacher" });
    return { ...user, email };
  };
  const personalToken = (userId: string) =>
    asUser(database().db, userId, (tx) => createPersonalAccessToken(tx, userId, { name: "laptop", ttlDays: 30 }));

  beforeAll(async () => {
    school = await createSchool(database().db, "Bearer");
  });

  describe("an admin's reset", () => {
    it("refuses the CLI tokens and personal access tokens issued before it, and lists those as revoked", async () => {
      const { db } = database();
      const teacher = await person();
      const cli = await signUserToken({ userId: teacher.id, ttlSeconds: 600 });
      const personal = await personalToken(teacher.id);
      await expectStatus(cli, 200);
      await expectStatus(personal.token, 200);

      await admin().people.resetPassword({ user_id: teacher.id });
      await expectStatus(cli, 401, /issued before the account's password was changed/);
      await expectStatus(personal.token, 401, /issued before the account's password was changed/);
      const [listed] = await createCaller({ db, user: { id: teacher.id } }).tokens.list();
      expect(listed).toMatchObject({ id: personal.id, revoked_at: expect.any(Date) });
    });

    it("holds a token issued after it at 'choose your password' until the person has chosen one", async () => {
      const { db } = database();
      const teacher = await person();
      const { temporary_password } = await admin().people.resetPassword({ user_id: teacher.id });
      // Issued in the same second as the reset, after it: the token's millisecond claim tells them apart.
      const after = await signUserToken({ userId: teacher.id, ttlSeconds: 600 });
      await expectStatus(after, 403, /Choose your own password first/);

      await createCaller({ db, user: { id: teacher.id, mustChoosePassword: true } }).me.choosePassword({
        current_password: temporary_password,
        new_password: "a password of my own",
      });
      // Their own change ends it too; a token issued after the change opens everything.
      await expectStatus(after, 401, /password was changed/);
      await expectStatus(await signUserToken({ userId: teacher.id, ttlSeconds: 600 }), 200);
    });

    it("judges a token without the millisecond claim by its iat, and one with neither as issued before", async () => {
      const teacher = await person();
      const old = await tokenIssuedAt(teacher.id, Math.floor(Date.now() / 1000) - 5);
      await expectStatus(old, 200);
      await admin().people.resetPassword({ user_id: teacher.id });
      await expectStatus(old, 401, /password was changed/);
      // iat in whole seconds, a second after the reset: held at "choose your password", not refused.
      const later = await tokenIssuedAt(teacher.id, Math.floor(Date.now() / 1000) + 1);
      await expectStatus(later, 403, /Choose your own password first/);
      await expectStatus(await tokenIssuedAt(teacher.id, undefined), 401, /password was changed/);
    });

    it("leaves the tokens of a user whose password never changed, and of everyone else, working", async () => {
      const teacher = await person();
      const cli = await signUserToken({ userId: teacher.id, ttlSeconds: 600 });
      await admin().people.resetPassword({ user_id: school.otherTeacher.id });
      await expectStatus(cli, 200);
      await expectStatus(school.teacher.token, 200);
    });
  });

  describe("the person's own change", () => {
    it("refuses their CLI tokens and personal access tokens issued before it, and keeps later ones", async () => {
      const { db } = database();
      const email = `own.${crypto.randomBytes(4).toString("hex")}@example.org`;
      const user = await asService(db, (tx) => createUser(tx, { email, password: "the first password", fullName: "Own Er", instituteId: school.institute.id, role: "teacher" }));
      const cli = await signUserToken({ userId: user.id, ttlSeconds: 600 });
      const personal = await personalToken(user.id);
      await expectStatus(cli, 200);
      await createCaller({ db, user: { id: user.id } }).me.choosePassword({ current_password: "the first password", new_password: "the second password" });
      await expectStatus(cli, 401, /password was changed/);
      await expectStatus(personal.token, 401, /password was changed/);
      const later = await personalToken(user.id);
      await expectStatus(later.token, 200);
      const listed = await createCaller({ db, user: { id: user.id } }).tokens.list();
      expect(listed.find((token) => token.id === personal.id)?.revoked_at).toEqual(expect.any(Date));
      expect(listed.find((token) => token.id === later.id)?.revoked_at).toBeNull();
    });
  });
});
