import fs from "node:fs";
import path from "node:path";
import { decodeJwt, decodeProtectedHeader } from "jose";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as bootstrapRoute } from "../app/me/bootstrap/route";
import { POST as issueRoute } from "../app/sync/token/route";
import { signUserToken } from "../server/auth/tokens";
import { createCaller } from "../server/trpc/root";
import { globalGraphDatabase } from "../server/graph/access";
import { SYNC_TOKEN_AUDIENCE, signSyncToken, syncTokenSecret, verifySyncToken } from "../server/classroom/sync-tokens";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { signHandMadeToken } from "./support/hand-made-token";

// A data folder of this file's own (the generated secret lives there), set before the configuration is read.
const dataDir = vi.hoisted(() => {
  const directory = `${process.env.TMPDIR ?? "/tmp"}/markbook-sync-tokens-${process.pid}-${Date.now()}`;
  process.env.DATA_DIR = directory;
  return directory;
});
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const BUCKET = "cc.public.snapshots";

const issue = (token: string | undefined, body: unknown) =>
  issueRoute(
    new Request("http://localhost/sync/token", {
      method: "POST",
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), "content-type": "application/json" },
      body: typeof body === "string" ? body : JSON.stringify(body),
    }),
  );

/** The same token with one claim changed and the original signature kept. */
function withClaim(token: string, claim: string, value: unknown): string {
  const [header, payload, signature] = token.split(".") as [string, string, string];
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  claims[claim] = value;
  return [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join(".");
}

describeOnEachDatabase("sync tokens", (database) => {
  let school: School;
  let otherSchool: School;
  let room: string;
  let personalDb: string;

  beforeAll(async () => {
    school = await createSchool(database().db, "Sync");
    otherSchool = await createSchool(database().db, "Elsewhere");
    room = `${BUCKET}/User/${school.teacher.id}`;
    personalDb = school.teacher.user_db_name;
  });

  /** A sync token signed by hand: the teacher's, for their room, without a database; audience or secret as given. */
  const handMadeSyncToken = (changes: { audience?: string; secret?: string } = {}) =>
    signHandMadeToken({
      claims: { room, scope: "canvas:write" },
      subject: school.teacher.id,
      issuer: "markbook",
      audience: SYNC_TOKEN_AUDIENCE,
      secret: syncTokenSecret(),
      ...changes,
    });

  describe("POST /sync/token", () => {
    it("issues an HS256 token with sub, room, scope, iat, exp and aud, living SYNC_TOKEN_TTL_SECONDS (300)", async () => {
      const response = await issue(school.teacher.token, { room, db_name: school.teacher.user_db_name });
      expect(response.status).toBe(200);
      const body = await response.json();
      expect(body).toMatchObject({ token_type: "Bearer", room, db_name: personalDb, scope: "canvas:write", expires_in: 300 });
      expect(decodeProtectedHeader(body.token).alg).toBe("HS256");
      const claims = decodeJwt(body.token);
      expect(claims).toMatchObject({ sub: school.teacher.id, room, db_name: personalDb, scope: "canvas:write", aud: SYNC_TOKEN_AUDIENCE });
      expect(claims.exp! - claims.iat!).toBe(300);
      expect(Date.parse(body.expires_at) / 1000).toBe(claims.exp);
      expect(body.token).not.toContain(syncTokenSecret());
      await expect(verifySyncToken(body.token, { room, db_name: personalDb })).resolves.toMatchObject({ userId: school.teacher.id, room });
    });

    it("issues tokens for rooms in the school's graph databases", async () => {
      for (const dbName of [school.institute.graph_db_name, school.institute.curriculum_db_name]) {
        const response = await issue(school.student.token, { room: `${BUCKET}/Subject/maths`, db_name: dbName });
        expect(response.status).toBe(200);
      }
    });

    it("follows the snapshot write rules: 400 for a bad room, 403 outside the caller's scope and for calendars", async () => {
      const refused: Array<[unknown, number]> = [
        [{ room: `${BUCKET}/User`, db_name: "x" }, 400],
        [{ room: `${BUCKET}/User/../x`, db_name: "x" }, 400],
        [{ room: `${BUCKET}/User/a%2e`, db_name: "x" }, 400],
        [{ room: `other/User/${school.teacher.id}`, db_name: school.teacher.user_db_name }, 403],
        [{ room: `${BUCKET}/User/${school.student.id}`, db_name: school.institute.graph_db_name }, 403],
        [{ room: `${BUCKET}/Subject/maths`, db_name: otherSchool.institute.graph_db_name }, 403],
        [{ room: `${BUCKET}/CalendarDay/2027-01-04`, db_name: globalGraphDatabase() }, 403],
        [{ room }, 400],
        [{ db_name: "x" }, 400],
        ["not json", 400],
      ];
      for (const [body, status] of refused) {
        const response = await issue(school.teacher.token, body);
        expect(response.status, JSON.stringify(body)).toBe(status);
        expect(await response.json()).toHaveProperty("detail");
      }
    });

    it("answers 403 without a token or with a token without a user id, 401 with an invalid one", async () => {
      const body = { room, db_name: school.teacher.user_db_name };
      expect((await issue(undefined, body)).status).toBe(403);
      const noSubject = await signHandMadeToken({ secret: process.env.AUTH_SECRET! });
      expect((await issue(noSubject, body)).status).toBe(403);
      expect((await issue(await signUserToken({ userId: school.teacher.id, ttlSeconds: -5 }), body)).status).toBe(401);
    });

    it("keeps the two secrets apart: a sync token is no user token", async () => {
      const { token } = await (await issue(school.teacher.token, { room, db_name: school.teacher.user_db_name })).json();
      const asUserToken = await bootstrapRoute(new Request("http://localhost/me/bootstrap", { headers: { authorization: `Bearer ${token}` } }));
      expect(asUserToken.status).toBe(401);
      await expect(verifySyncToken(school.teacher.token, { room, db_name: personalDb })).rejects.toMatchObject({ code: "unauthenticated" });
      expect(syncTokenSecret()).not.toBe(process.env.AUTH_SECRET);
    });
  });

  describe("a token's room belongs to one graph database (issue 14)", () => {
    it("REST: B's token for Lesson/x in B's database does not verify for A's Lesson/x", async () => {
      const lesson = `${BUCKET}/Lesson/x`;
      const response = await issue(otherSchool.teacher.token, { room: lesson, db_name: otherSchool.institute.graph_db_name });
      expect(response.status).toBe(200);
      const { token } = await response.json();
      expect(decodeJwt(token)).toMatchObject({ room: lesson, db_name: otherSchool.institute.graph_db_name });
      await expect(verifySyncToken(token, { room: lesson, db_name: school.institute.graph_db_name })).rejects.toMatchObject({ code: "forbidden" });
      await expect(verifySyncToken(token, { room: lesson, db_name: otherSchool.institute.graph_db_name })).resolves.toMatchObject({
        room: lesson,
        dbName: otherSchool.institute.graph_db_name,
      });
      // B cannot ask for A's database either.
      expect((await issue(otherSchool.teacher.token, { room: lesson, db_name: school.institute.graph_db_name })).status).toBe(403);
    });

    it("REST: B's token for A's personal Teacher room, named in B's personal database, does not verify for A's", async () => {
      const personal = `${BUCKET}/Teacher/${school.teacher.id}`;
      const response = await issue(otherSchool.teacher.token, { room: personal, db_name: otherSchool.teacher.user_db_name });
      expect(response.status).toBe(200);
      const { token } = await response.json();
      for (const dbName of [school.teacher.user_db_name, school.institute.graph_db_name]) {
        await expect(verifySyncToken(token, { room: personal, db_name: dbName })).rejects.toMatchObject({ code: "forbidden" });
      }
    });

    it("tRPC: the same binding for the web app", async () => {
      const b = createCaller({ db: database().db, user: { id: otherSchool.teacher.id } });
      const lesson = `${BUCKET}/Lesson/y`;
      const issued = await b.snapshots.syncToken({ room: lesson, db_name: otherSchool.institute.curriculum_db_name });
      await expect(verifySyncToken(issued.token, { room: lesson, db_name: school.institute.curriculum_db_name })).rejects.toMatchObject({ code: "forbidden" });
      await expect(b.snapshots.syncToken({ room: lesson, db_name: school.institute.curriculum_db_name })).rejects.toMatchObject({ code: "FORBIDDEN" });
    });

    it("refuses a token without a database (issued before tokens named one)", async () => {
      const legacy = await handMadeSyncToken();
      await expect(verifySyncToken(legacy, { room, db_name: school.teacher.user_db_name })).rejects.toMatchObject({ code: "forbidden" });
    });
  });

  describe("verifySyncToken", () => {
    it("refuses an expired token", async () => {
      const { token } = await signSyncToken({ userId: school.teacher.id, room, dbName: personalDb, ttlSeconds: 300, now: new Date(Date.now() - 3600_000) });
      await expect(verifySyncToken(token, { room, db_name: personalDb })).rejects.toMatchObject({ code: "unauthenticated", message: expect.stringMatching(/expired/) });
      // The same token was fine while it lived.
      await expect(verifySyncToken(token, { room, db_name: personalDb, now: new Date(Date.now() - 3500_000) })).resolves.toMatchObject({ room, dbName: personalDb });
    });

    it("refuses a token for another audience", async () => {
      const foreign = await handMadeSyncToken({ audience: "some-other-service" });
      await expect(verifySyncToken(foreign, { room, db_name: personalDb })).rejects.toMatchObject({ code: "unauthenticated", message: expect.stringMatching(/sync service/) });
    });

    it("refuses a token for another room", async () => {
      const { token } = await signSyncToken({ userId: school.teacher.id, room, dbName: personalDb });
      await expect(verifySyncToken(token, { room: `${BUCKET}/User/${school.student.id}`, db_name: personalDb })).rejects.toMatchObject({ code: "forbidden" });
    });

    it("refuses a tampered token: changed claims, changed signature, another key, alg none", async () => {
      const { token } = await signSyncToken({ userId: school.teacher.id, room, dbName: personalDb });
      const otherRoom = `${BUCKET}/User/${school.student.id}`;
      await expect(verifySyncToken(withClaim(token, "room", otherRoom), { room: otherRoom, db_name: personalDb })).rejects.toMatchObject({ code: "unauthenticated" });
      await expect(verifySyncToken(withClaim(token, "exp", 9999999999), { room, db_name: personalDb })).rejects.toMatchObject({ code: "unauthenticated" });
      const foreignDb = otherSchool.institute.graph_db_name;
      await expect(verifySyncToken(withClaim(token, "db_name", foreignDb), { room, db_name: foreignDb })).rejects.toMatchObject({ code: "unauthenticated" });
      await expect(verifySyncToken(withClaim(token, "sub", school.admin.id), { room, db_name: personalDb })).rejects.toMatchObject({ code: "unauthenticated" });
      const signature = token.split(".")[2]!;
      const flipped = `${token.slice(0, -signature.length)}${signature[0] === "A" ? "B" : "A"}${signature.slice(1)}`;
      await expect(verifySyncToken(flipped, { room, db_name: personalDb })).rejects.toMatchObject({ code: "unauthenticated" });
      const withAuthSecret = await handMadeSyncToken({ secret: process.env.AUTH_SECRET! });
      await expect(verifySyncToken(withAuthSecret, { room, db_name: personalDb })).rejects.toMatchObject({ code: "unauthenticated" });
      const [, payload] = token.split(".");
      const unsigned = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${payload}.`;
      await expect(verifySyncToken(unsigned, { room, db_name: personalDb })).rejects.toMatchObject({ code: "unauthenticated" });
      await expect(verifySyncToken("garbage", { room, db_name: personalDb })).rejects.toMatchObject({ code: "unauthenticated" });
    });

    it("keeps a generated secret in DATA_DIR/secrets, readable only by its owner", () => {
      const file = path.join(dataDir, "secrets", "sync_token_secret");
      expect(fs.readFileSync(file, "utf8").trim()).toBe(syncTokenSecret());
      expect(fs.statSync(file).mode & 0o777).toBe(0o600);
      expect(syncTokenSecret().length).toBeGreaterThanOrEqual(32);
    });
  });
});
