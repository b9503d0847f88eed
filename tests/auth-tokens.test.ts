import crypto from "node:crypto";
import { SignJWT } from "jose";
import { encode } from "next-auth/jwt";
import { beforeAll, expect, it } from "vitest";
import { GET } from "../app/me/bootstrap/route";
import { verifyCredentials } from "../server/sign-in/credentials";
import { sessionCookieName, sessionOptions } from "../server/auth/next-auth";
import { signUserToken } from "../server/auth/tokens";
import { asService, asUser } from "../server/db/rls";
import { personalAccessTokens } from "../server/db/schema";
import { createPersonalAccessToken, revokePersonalAccessToken } from "../server/identity/personal-tokens";
import { createUser, setUserActive } from "../server/identity/users";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";

const secret = new TextEncoder().encode(process.env.AUTH_SECRET);
const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
const inOneHour = () => Math.floor(Date.now() / 1000) + 3600;

async function bootstrap(authorization?: string) {
  const headers = authorization === undefined ? undefined : { authorization };
  return GET(new Request("http://localhost/me/bootstrap", { headers }));
}

async function expectRefused(response: Response, detail: RegExp) {
  expect(response.status).toBe(401);
  const body = await response.json();
  expect(Object.keys(body)).toEqual(["detail"]);
  expect(body.detail).toMatch(detail);
}

describeOnEachDatabase("bearer tokens at /me/bootstrap", (database) => {
  let school: School;

  beforeAll(async () => {
    school = await createSchool(database().db, "Tokens");
  });

  it("accepts the valid token it refuses everything else against", async () => {
    const response = await bootstrap(`Bearer ${school.teacher.token}`);
    expect(response.status).toBe(200);
    expect((await response.json()).id).toBe(school.teacher.id);
  });

  it("refuses a request without an Authorization header", async () => {
    await expectRefused(await bootstrap(), /missing bearer token/i);
  });

  it("refuses another authorization scheme", async () => {
    await expectRefused(await bootstrap(`Basic ${Buffer.from("teacher:secret").toString("base64")}`), /missing bearer token/i);
    await expectRefused(await bootstrap(school.teacher.token), /missing bearer token/i);
  });

  it("refuses garbage", async () => {
    await expectRefused(await bootstrap("Bearer not-a-token"), /invalid token/i);
    await expectRefused(await bootstrap("Bearer a.b.c"), /invalid token/i);
  });

  it("refuses an expired token", async () => {
    const expired = await signUserToken({ userId: school.teacher.id, ttlSeconds: -60 });
    await expectRefused(await bootstrap(`Bearer ${expired}`), /expired/i);
  });

  it("refuses a token signed with another secret", async () => {
    const forged = await new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject(school.teacher.id)
      .setExpirationTime(inOneHour())
      .sign(new TextEncoder().encode("another-secret-another-secret-another-secret"));
    await expectRefused(await bootstrap(`Bearer ${forged}`), /invalid token/i);
  });

  it("refuses an unsigned token (alg: none)", async () => {
    const unsigned = `${base64url({ alg: "none", typ: "JWT" })}.${base64url({ sub: school.teacher.id, exp: inOneHour() })}.`;
    await expectRefused(await bootstrap(`Bearer ${unsigned}`), /invalid token/i);
  });

  it("refuses a correctly signed token without a user id", async () => {
    const anonymous = await new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setExpirationTime(inOneHour()).sign(secret);
    await expectRefused(await bootstrap(`Bearer ${anonymous}`), /user id/i);
  });

  it("refuses a correctly signed token whose sub is not a user id", async () => {
    const admin = await new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject("admin").setExpirationTime(inOneHour()).sign(secret);
    await expectRefused(await bootstrap(`Bearer ${admin}`), /user id/i);
  });

  it("refuses the token of a user who does not exist", async () => {
    const ghost = await signUserToken({ userId: crypto.randomUUID(), ttlSeconds: 600 });
    await expectRefused(await bootstrap(`Bearer ${ghost}`), /no longer exists/i);
  });

  it("refuses a deactivated user's token, personal access token, session cookie and password, until reactivated", async () => {
    const { db } = database();
    const email = `deactivated.${crypto.randomBytes(4).toString("hex")}@example.org`;
    const user = await asService(db, (tx) => createUser(tx, { email, password: "correct-horse-battery", fullName: "Dee Activated" }));
    const token = await signUserToken({ userId: user.id, ttlSeconds: 600 });
    const personal = await asUser(db, user.id, (tx) => createPersonalAccessToken(tx, user.id, { name: "laptop", ttlDays: 30 }));
    const cookie = `${sessionCookieName}=${await encode({ token: { sub: user.id }, secret: sessionOptions.secret! })}`;
    const credentials = { email, password: "correct-horse-battery" };
    const withCookie = () => GET(new Request("http://localhost/me/bootstrap", { headers: { cookie } }));
    expect((await bootstrap(`Bearer ${token}`)).status).toBe(200);
    expect((await withCookie()).status).toBe(200);
    expect(await verifyCredentials(db, credentials)).toMatchObject({ id: user.id });

    await asService(db, (tx) => setUserActive(tx, { userId: user.id, active: false }));
    await expectRefused(await bootstrap(`Bearer ${token}`), /deactivated/i);
    await expectRefused(await bootstrap(`Bearer ${personal.token}`), /deactivated/i);
    expect((await withCookie()).status).toBe(401);
    expect(await verifyCredentials(db, credentials)).toBeNull();

    await asService(db, (tx) => setUserActive(tx, { userId: user.id, active: true }));
    expect((await bootstrap(`Bearer ${token}`)).status).toBe(200);
    expect(await verifyCredentials(db, credentials)).toMatchObject({ id: user.id });
  });

  it("refuses a personal access token once it is revoked", async () => {
    const { db } = database();
    const created = await asUser(db, school.student.id, (tx) =>
      createPersonalAccessToken(tx, school.student.id, { name: "laptop", ttlDays: 30 }),
    );
    expect((await bootstrap(`Bearer ${created.token}`)).status).toBe(200);
    await asUser(db, school.student.id, (tx) => revokePersonalAccessToken(tx, school.student.id, { id: created.id }));
    await expectRefused(await bootstrap(`Bearer ${created.token}`), /revoked/i);
  });

  it("refuses a personal access token whose row has expired, even if the JWT has not", async () => {
    const { db } = database();
    const id = crypto.randomUUID();
    await asUser(db, school.student.id, (tx) =>
      tx.insert(personalAccessTokens).values({ id, user_id: school.student.id, name: "old", expires_at: new Date(Date.now() - 1000) }),
    );
    const token = await signUserToken({ userId: school.student.id, ttlSeconds: 3600, tokenId: id });
    const response = await bootstrap(`Bearer ${token}`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ detail: expect.any(String) });
  });

  it("refuses a token that names a personal access token that was never issued", async () => {
    const token = await signUserToken({ userId: school.student.id, ttlSeconds: 3600, tokenId: crypto.randomUUID() });
    expect((await bootstrap(`Bearer ${token}`)).status).toBe(401);
  });
});
