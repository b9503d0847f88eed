import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as readRoute } from "../app/get_canvas_node_file/route";
import { PUT as writeRoute } from "../app/put_canvas_node_file/route";
import { signUserToken } from "../server/auth/tokens";
import { createCaller } from "../server/trpc/root";
import { emptyCanvasSnapshot } from "../server/classroom/canvas-snapshot-content";
import { globalGraphDatabase } from "../server/graph/access";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { signHandMadeToken } from "./support/hand-made-token";

// A data folder of this file's own, set before anything reads the configuration.
const dataDir = vi.hoisted(() => {
  const directory = `${process.env.TMPDIR ?? "/tmp"}/markbook-snapshots-${process.pid}-${Date.now()}`;
  process.env.DATA_DIR = directory;
  process.env.MAX_SNAPSHOT_BYTES = "65536";
  return directory;
});

afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }));

const BUCKET = "cc.public.snapshots";
const bucketDir = path.join(dataDir, "storage", BUCKET);
/** The folder of one graph database's snapshots in the bucket. */
const databaseDir = (dbName: string) => path.join(bucketDir, dbName);

/** Files under `directory`, at any depth; a folder that vanishes meanwhile (another test's temporary one) is skipped. */
function listFiles(directory: string): string[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(directory, { withFileTypes: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  return entries
    .flatMap((entry) => {
      const entryPath = path.join(directory, entry.name);
      return entry.isDirectory() ? listFiles(entryPath) : entry.isFile() ? [entryPath] : [];
    })
    .sort();
}

const snapshotWith = (marker: string) => {
  const snapshot = emptyCanvasSnapshot() as { document: { store: Record<string, unknown> } };
  snapshot.document.store["shape:marker"] = { id: "shape:marker", typeName: "shape", type: "text", props: { text: marker } };
  return snapshot;
};

const query = (params: Record<string, string>) => new URLSearchParams(params).toString();
const headersOf = (token?: string) => (token ? { authorization: `Bearer ${token}` } : undefined);
const read = (token: string | undefined, rawQuery: string) =>
  readRoute(new Request(`http://localhost/get_canvas_node_file?${rawQuery}`, { headers: headersOf(token) }));
const write = (token: string | undefined, rawQuery: string, body: BodyInit) =>
  writeRoute(new Request(`http://localhost/put_canvas_node_file?${rawQuery}`, { method: "PUT", headers: headersOf(token), body }));

describeOnEachDatabase("canvas snapshots", (database) => {
  let school: School;
  let otherSchool: School;
  let me: School["teacher"];
  let myDb: string;

  beforeAll(async () => {
    school = await createSchool(database().db, "Canvas");
    otherSchool = await createSchool(database().db, "Elsewhere");
    me = school.teacher;
    myDb = me.user_db_name;
  });

  const userPath = (id = me.id) => `${BUCKET}/User/${id}`;

  describe("reading", () => {
    it("answers a valid empty tldraw document with one page when nothing is stored", async () => {
      const response = await read(me.token, query({ path: `${BUCKET}/Department/nothing-here`, db_name: school.institute.graph_db_name }));
      expect(response.status).toBe(200);
      expect(response.headers.get("x-snapshot-source")).toBe("default");
      const snapshot = await response.json();
      expect(Object.keys(snapshot).sort()).toEqual(["document", "session"]);
      expect(snapshot.document.schema).toMatchObject({ schemaVersion: 2, sequences: expect.any(Object) });
      const records: Array<{ typeName: string; id: string }> = Object.values(snapshot.document.store);
      expect(records.filter((record) => record.typeName === "page")).toHaveLength(1);
      expect(records.filter((record) => record.typeName === "document")).toHaveLength(1);
      expect(snapshot.session.currentPageId).toBe(records.find((record) => record.typeName === "page")!.id);
    });

    it("returns what was written, stored at <db_name>/<node_type>/<node_id>/canvas_file.json in the bucket", async () => {
      const snapshot = snapshotWith("round trip");
      const saved = await write(me.token, query({ path: userPath(), db_name: myDb }), JSON.stringify(snapshot));
      expect(saved.status).toBe(200);
      expect(await saved.json()).toEqual({ status: "success", path: userPath(), bytes: JSON.stringify(snapshot).length });
      expect(JSON.parse(fs.readFileSync(path.join(databaseDir(myDb), "User", me.id, "canvas_file.json"), "utf8"))).toEqual(snapshot);
      const response = await read(me.token, query({ path: userPath(), db_name: myDb }));
      expect(response.headers.get("x-snapshot-source")).toBe("stored");
      expect(await response.json()).toEqual(snapshot);
      // The same node in another of the caller's databases is another canvas.
      const elsewhere = await read(me.token, query({ path: userPath(), db_name: school.institute.graph_db_name }));
      expect(elsewhere.headers.get("x-snapshot-source")).toBe("default");
    });

    it("no longer reads an object at the old key <node_type>/<node_id>/canvas_file.json (it names no database)", async () => {
      const folder = path.join(bucketDir, "Department", "before-issue-14");
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(path.join(folder, "canvas_file.json"), JSON.stringify(snapshotWith("OLD-KEY")));
      const response = await read(me.token, query({ path: `${BUCKET}/Department/before-issue-14`, db_name: school.institute.graph_db_name }));
      expect(response.headers.get("x-snapshot-source")).toBe("default");
      expect(await response.text()).not.toContain("OLD-KEY");
    });

    it("replaces a malformed or structurally invalid stored snapshot with the default content", async () => {
      const stored = [
        "{ not json",
        "",
        JSON.stringify([1, 2]),
        JSON.stringify({ document: { store: {} } }),
        JSON.stringify({ session: {} }),
        JSON.stringify({ document: { store: {} }, session: {} }),
        JSON.stringify({ document: "text", session: {}, schemaVersion: 1 }),
      ];
      for (const [index, content] of stored.entries()) {
        const folder = path.join(databaseDir(school.institute.graph_db_name), "Department", `broken-${index}`);
        fs.mkdirSync(folder, { recursive: true });
        fs.writeFileSync(path.join(folder, "canvas_file.json"), content);
        const response = await read(me.token, query({ path: `${BUCKET}/Department/broken-${index}`, db_name: school.institute.graph_db_name }));
        expect(response.status).toBe(200);
        expect(response.headers.get("x-snapshot-source")).toBe("default");
        expect(await response.json()).toEqual(emptyCanvasSnapshot());
      }
    });

    it("accepts a snapshot with a root schemaVersion instead of document.schema", async () => {
      const legacy = { schemaVersion: 1, document: { store: {} }, session: {} };
      const folder = path.join(databaseDir(school.institute.curriculum_db_name), "Department", "legacy");
      fs.mkdirSync(folder, { recursive: true });
      fs.writeFileSync(path.join(folder, "canvas_file.json"), JSON.stringify(legacy));
      const response = await read(me.token, query({ path: `${BUCKET}/Department/legacy`, db_name: school.institute.curriculum_db_name }));
      expect(await response.json()).toEqual(legacy);
    });
  });

  describe("rule 1: the path", () => {
    const expectRefused = async (rawQuery: string, status: number) => {
      const response = await read(me.token, rawQuery);
      expect(response.status, rawQuery).toBe(status);
      expect((await response.json()).detail).toEqual(expect.any(String));
    };

    it("needs path and db_name (400)", async () => {
      await expectRefused(query({ db_name: myDb }), 400);
      await expectRefused(query({ path: userPath() }), 400);
      await expectRefused(query({ path: "", db_name: myDb }), 400);
    });

    it("needs exactly three non-empty parts (400), the snapshots bucket (403), no dots (400), plain characters (400)", async () => {
      await expectRefused(query({ path: `${BUCKET}/User`, db_name: myDb }), 400);
      await expectRefused(query({ path: `${BUCKET}/User/${me.id}/extra`, db_name: myDb }), 400);
      await expectRefused(query({ path: `${BUCKET}//${me.id}`, db_name: myDb }), 400);
      await expectRefused(query({ path: `other.bucket/User/${me.id}`, db_name: myDb }), 403);
      await expectRefused(query({ path: `cc.private.snapshots/User/${me.id}`, db_name: myDb }), 403);
      await expectRefused(query({ path: `${BUCKET}/User/..`, db_name: myDb }), 400);
      await expectRefused(query({ path: `${BUCKET}/./x`, db_name: myDb }), 400);
      await expectRefused(query({ path: `${BUCKET}/User/a..b`, db_name: myDb }), 400);
      await expectRefused(query({ path: `${BUCKET}/User/a.b`, db_name: myDb }), 400);
      await expectRefused(query({ path: `${BUCKET}/Us er/x`, db_name: myDb }), 400);
    });
  });

  describe("rules 3 to 5: who may read and write which canvas", () => {
    it("personal node types: the caller's own node in any of their databases, or any node in their personal database", async () => {
      for (const nodeType of ["User", "Teacher", "Developer", "SuperAdmin", "UserTeacherTimetable"]) {
        expect((await read(me.token, query({ path: `${BUCKET}/${nodeType}/${me.id}`, db_name: school.institute.graph_db_name }))).status).toBe(200);
        expect((await read(me.token, query({ path: `${BUCKET}/${nodeType}/${me.id}`, db_name: "someone-elses" }))).status).toBe(403);
        expect((await read(me.token, query({ path: `${BUCKET}/${nodeType}/${school.student.id}`, db_name: myDb }))).status).toBe(200);
        const foreign = await read(me.token, query({ path: `${BUCKET}/${nodeType}/${school.student.id}`, db_name: school.institute.graph_db_name }));
        expect(foreign.status).toBe(403);
      }
      const theirs = await write(me.token, query({ path: userPath(school.student.id), db_name: school.student.user_db_name }), JSON.stringify(snapshotWith("x")));
      expect(theirs.status).toBe(403);
      expect(fs.existsSync(path.join(databaseDir(school.student.user_db_name), "User", school.student.id))).toBe(false);
    });

    it("calendar node types: readable in the shared global database, never writable", async () => {
      for (const nodeType of ["CalendarYear", "CalendarMonth", "CalendarWeek", "CalendarDay", "CalendarTimeChunk"]) {
        const location = query({ path: `${BUCKET}/${nodeType}/2027`, db_name: globalGraphDatabase() });
        expect((await read(me.token, location)).status).toBe(200);
        const written = await write(me.token, location, JSON.stringify(snapshotWith("calendar")));
        expect(written.status).toBe(403);
        expect((await written.json()).detail).toMatch(/read-only/);
        const inMyDb = await write(me.token, query({ path: `${BUCKET}/${nodeType}/2027`, db_name: myDb }), JSON.stringify(snapshotWith("c")));
        expect(inMyDb.status).toBe(403);
        expect((await read(me.token, query({ path: `${BUCKET}/${nodeType}/2027`, db_name: otherSchool.institute.graph_db_name }))).status).toBe(403);
      }
      for (const dbName of [globalGraphDatabase(), myDb]) expect(fs.existsSync(path.join(databaseDir(dbName), "CalendarYear"))).toBe(false);
    });

    it("other node types: only in the caller's personal, institute or curriculum database", async () => {
      const location = (dbName: string) => query({ path: `${BUCKET}/Department/maths`, db_name: dbName });
      for (const dbName of [myDb, school.institute.graph_db_name, school.institute.curriculum_db_name]) {
        expect((await read(me.token, location(dbName))).status).toBe(200);
        expect((await write(me.token, location(dbName), JSON.stringify(snapshotWith(dbName)))).status).toBe(200);
      }
      for (const dbName of [otherSchool.institute.graph_db_name, otherSchool.institute.curriculum_db_name, otherSchool.teacher.user_db_name, globalGraphDatabase()]) {
        expect((await read(me.token, location(dbName))).status).toBe(403);
        expect((await write(me.token, location(dbName), JSON.stringify(snapshotWith("intruder")))).status).toBe(403);
      }
      const stored = await (await read(me.token, location(myDb))).json();
      expect(JSON.stringify(stored)).not.toContain("intruder");
    });
  });

  describe("rule 6: the token", () => {
    it("answers 403 without a token and for a signed token without a user id; 401 for an invalid token", async () => {
      const location = query({ path: userPath(), db_name: myDb });
      expect((await read(undefined, location)).status).toBe(403);
      expect((await write(undefined, location, JSON.stringify(snapshotWith("x")))).status).toBe(403);
      const noSubject = await signHandMadeToken({ secret: process.env.AUTH_SECRET! });
      expect((await read(noSubject, location)).status).toBe(403);
      expect((await read("not-a-token", location)).status).toBe(401);
      const expired = await signUserToken({ userId: me.id, ttlSeconds: -10 });
      expect((await read(expired, location)).status).toBe(401);
    });
  });

  describe("writing", () => {
    const location = () => query({ path: `${BUCKET}/Department/validated`, db_name: school.institute.graph_db_name });

    it("refuses a body that is not a valid snapshot with 400 and the reason, storing nothing", async () => {
      const cases: Array<[string, RegExp]> = [
        ["{ nope", /not valid JSON/],
        ["", /snapshot JSON/],
        [JSON.stringify([]), /JSON object/],
        [JSON.stringify({ session: {} }), /no document/],
        [JSON.stringify({ document: { schema: {} } }), /no session/],
        [JSON.stringify({ document: { store: {} }, session: {} }), /schema/],
        [JSON.stringify({ document: null, session: {}, schemaVersion: 2 }), /document must be an object/],
      ];
      for (const [body, reason] of cases) {
        const response = await write(me.token, location(), body);
        expect(response.status, body).toBe(400);
        expect((await response.json()).detail).toMatch(reason);
      }
      expect(fs.existsSync(path.join(databaseDir(school.institute.graph_db_name), "Department", "validated"))).toBe(false);
    });

    it("refuses a snapshot above MAX_SNAPSHOT_BYTES with 413, declared or streamed", async () => {
      const big = snapshotWith("x".repeat(70_000));
      const declared = await write(me.token, location(), JSON.stringify(big));
      expect(declared.status).toBe(413);
      const encoded = new TextEncoder().encode(JSON.stringify(big));
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          for (let offset = 0; offset < encoded.length; offset += 8192) controller.enqueue(encoded.slice(offset, offset + 8192));
          controller.close();
        },
      });
      const streamed = await writeRoute(
        new Request(`http://localhost/put_canvas_node_file?${location()}`, {
          method: "PUT",
          headers: headersOf(me.token),
          body: stream,
          duplex: "half",
        } as RequestInit),
      );
      expect(streamed.status).toBe(413);
      expect(fs.existsSync(path.join(databaseDir(school.institute.graph_db_name), "Department", "validated"))).toBe(false);
    });

    it("keeps the stored file one complete version under concurrent writes", async () => {
      const target = query({ path: `${BUCKET}/Department/contended`, db_name: school.institute.graph_db_name });
      const versions = Array.from({ length: 12 }, (_, index) => JSON.stringify(snapshotWith(`version ${index} ${"v".repeat(20_000)}`)));
      const file = path.join(databaseDir(school.institute.graph_db_name), "Department", "contended", "canvas_file.json");
      expect((await write(me.token, target, versions[0]!)).status).toBe(200);
      const observed: string[] = [];
      const watcher = (async () => {
        for (let round = 0; round < 40; round += 1) {
          observed.push(fs.readFileSync(file, "utf8"));
          await new Promise((resolve) => setImmediate(resolve));
        }
      })();
      const results = await Promise.all([...versions.slice(1).map((version) => write(me.token, target, version)), watcher]);
      for (const result of results.slice(0, -1)) expect((result as Response).status).toBe(200);
      for (const seen of [...observed, fs.readFileSync(file, "utf8")]) expect(versions).toContain(seen);
      const served = await (await read(me.token, target)).text();
      expect(versions.map((version) => JSON.stringify(JSON.parse(version)))).toContain(served);
      expect(fs.readdirSync(path.dirname(file))).toEqual(["canvas_file.json"]);
    });
  });

  describe("tRPC (the web app)", () => {
    it("reads and writes with the same rules as the REST paths", async () => {
      const caller = createCaller({ db: database().db, user: { id: me.id } });
      const location = { path: `${BUCKET}/Teacher/${me.id}`, db_name: myDb };
      expect(await caller.snapshots.get(location)).toEqual({ snapshot: emptyCanvasSnapshot(), source: "default" });
      const snapshot = snapshotWith("via tRPC");
      expect((await caller.snapshots.put({ ...location, snapshot })).status).toBe("success");
      expect(await caller.snapshots.get(location)).toEqual({ snapshot, source: "stored" });
      await expect(caller.snapshots.put({ ...location, snapshot: { document: {} } })).rejects.toMatchObject({ code: "BAD_REQUEST" });
      await expect(
        caller.snapshots.put({ path: `${BUCKET}/CalendarYear/2027`, db_name: globalGraphDatabase(), snapshot }),
      ).rejects.toMatchObject({ code: "FORBIDDEN" });
      await expect(caller.snapshots.get({ path: `${BUCKET}/User/..`, db_name: myDb })).rejects.toMatchObject({ code: "BAD_REQUEST" });
      const token = await caller.snapshots.syncToken({ room: location.path, db_name: myDb });
      expect(token.room).toBe(location.path);
    });
  });

  describe("path-traversal corpus", () => {
    const corpus = [
      "path=../secret.json/x",
      "path=..%2F..%2Fsecret.json",
      `path=${BUCKET}/../secret`,
      `path=${BUCKET}/User/..`,
      `path=${BUCKET}/../..`,
      `path=${BUCKET}/%2e%2e/%2e%2e`,
      `path=${BUCKET}/%2E%2E/victim`,
      `path=${BUCKET}/%252e%252e/victim`,
      `path=${BUCKET}/..%2F..%2Fvictim/x`,
      `path=${BUCKET}/User%2F..%2F..%2Fvictim/x`,
      `path=${BUCKET}/User/x%2F..%2F..%2F..%2Fsecret`,
      `path=${BUCKET}/User%252F..%252F..%252Fvictim/x`,
      `path=${BUCKET}/User/..%5C..%5Cvictim`,
      `path=${BUCKET}/User/x%5C..%5C..`,
      "path=/etc/passwd",
      "path=//etc/passwd",
      `path=/${BUCKET}/User/x`,
      `path=${BUCKET}//etc/passwd`,
      `path=${BUCKET}/User/%2Fetc%2Fpasswd`,
      "path=file:///etc/passwd",
      `path=${BUCKET}/User/x%00`,
      `path=${BUCKET}/User%00/x`,
      `path=${BUCKET}%00/User/x`,
      `path=${BUCKET}/User/x%00.json`,
      `path=${BUCKET}/User/${"a".repeat(129)}`,
      `path=${BUCKET}/${"A".repeat(5000)}/x`,
      `path=${BUCKET}/User/${"b".repeat(2000)}`,
      `path=${BUCKET}/User/${encodeURIComponent("\u2024\u2024")}`,
      `path=${BUCKET}/User/${encodeURIComponent("\uFF0E\uFF0E")}`,
      `path=${BUCKET}/${encodeURIComponent("User\u2215..\u2215..\u2215victim")}/x`,
      `path=${BUCKET}/${encodeURIComponent("User\uFF0F..\uFF0F..")}/x`,
      `path=${BUCKET}/${encodeURIComponent("\uFF35ser")}/x`,
      `path=${BUCKET}/User/${encodeURIComponent("x\u200B")}`,
      `path=${BUCKET}/./x`,
      "path=victim/User/x",
      "path=..%2Fstorage%2Fvictim/User/x",
      `path=${encodeURIComponent(`${BUCKET}/../../..`)}`,
    ]
      .map((entry) => `${entry}&db_name=${encodeURIComponent("user-db")}`)
      // db_name is part of the storage key: the same traversals through it.
      .concat(
        ["..", ".", "../victim", "..%2F..%2Fvictim", "%2e%2e", "victim/User", "/etc", "a\\..\\b", "x%00", `${"a".repeat(300)}`, "..%252F..%252Fvictim"].map(
          (dbName) => `path=${BUCKET}/Department/x&db_name=${dbName}`,
        ),
      );

    beforeAll(() => {
      // Bait outside the bucket: valid snapshots that a traversal would return or overwrite.
      const bait = JSON.stringify(snapshotWith("TOPSECRET"));
      fs.mkdirSync(path.join(dataDir, "storage", "victim", "User", "x"), { recursive: true });
      fs.writeFileSync(path.join(dataDir, "storage", "victim", "User", "x", "canvas_file.json"), bait);
      fs.writeFileSync(path.join(dataDir, "secret.json"), bait);
      fs.writeFileSync(path.join(dataDir, "storage", "canvas_file.json"), bait);
    });

    it("refuses every read with 400 or 403 and returns nothing from outside the bucket", async () => {
      for (const entry of corpus) {
        const rawQuery = entry.replace("user-db", myDb);
        const response = await read(me.token, rawQuery);
        expect([400, 403], rawQuery).toContain(response.status);
        const body = await response.text();
        expect(body).not.toContain("TOPSECRET");
        expect(body).not.toContain("root:");
      }
    });

    it("refuses every write with 400 or 403 and changes no file anywhere in the data folder", async () => {
      const before = listFiles(dataDir).map((file) => [file, fs.readFileSync(file, "utf8")]);
      for (const entry of corpus) {
        const rawQuery = entry.replace("user-db", myDb);
        const response = await write(me.token, rawQuery, JSON.stringify(snapshotWith("OVERWRITTEN")));
        expect([400, 403], rawQuery).toContain(response.status);
      }
      const after = listFiles(dataDir).map((file) => [file, fs.readFileSync(file, "utf8")]);
      expect(after).toEqual(before);
      expect(listFiles(path.dirname(dataDir)).filter((file) => file.includes("OVERWRITTEN"))).toEqual([]);
    });
  });

  describe("a snapshot belongs to one graph database (issue 14)", () => {
    // School A (`school`) keeps canvases; a user of school B (`otherSchool`) names B's own databases.
    const markerOf = async (response: Response) => {
      expect(response.status).toBe(200);
      return JSON.stringify(await response.json());
    };

    it("REST: B's user cannot read or overwrite A's Lesson canvas by naming B's database", async () => {
      const lesson = `${BUCKET}/Lesson/shared-${Date.now()}`;
      const inA = query({ path: lesson, db_name: school.institute.graph_db_name });
      const inB = query({ path: lesson, db_name: otherSchool.institute.graph_db_name });
      expect((await write(me.token, inA, JSON.stringify(snapshotWith("A-LESSON")))).status).toBe(200);

      const seenByB = await read(otherSchool.teacher.token, inB);
      expect(seenByB.headers.get("x-snapshot-source")).toBe("default");
      expect(await markerOf(seenByB)).not.toContain("A-LESSON");

      expect((await write(otherSchool.teacher.token, inB, JSON.stringify(snapshotWith("B-LESSON")))).status).toBe(200);
      expect(await markerOf(await read(otherSchool.teacher.token, inB))).toContain("B-LESSON");
      const stillA = await markerOf(await read(me.token, inA));
      expect(stillA).toContain("A-LESSON");
      expect(stillA).not.toContain("B-LESSON");
      // And B cannot name A's database at all.
      expect((await read(otherSchool.teacher.token, inA)).status).toBe(403);
    });

    it("REST: B's user cannot read or overwrite A's personal Teacher canvas by naming B's personal database", async () => {
      const mine = `${BUCKET}/Teacher/${me.id}`;
      expect((await write(me.token, query({ path: mine, db_name: myDb }), JSON.stringify(snapshotWith("A-PERSONAL")))).status).toBe(200);
      const theirs = query({ path: mine, db_name: otherSchool.teacher.user_db_name });

      const seenByB = await read(otherSchool.teacher.token, theirs);
      expect(seenByB.headers.get("x-snapshot-source")).toBe("default");
      expect(await markerOf(seenByB)).not.toContain("A-PERSONAL");
      expect((await write(otherSchool.teacher.token, theirs, JSON.stringify(snapshotWith("B-PERSONAL")))).status).toBe(200);
      const stillA = await markerOf(await read(me.token, query({ path: mine, db_name: myDb })));
      expect(stillA).toContain("A-PERSONAL");
      expect(stillA).not.toContain("B-PERSONAL");
    });

    it("REST: the caller's own node id does not open a database outside their scope (stricter than rule 3)", async () => {
      const ownNode = `${BUCKET}/Teacher/${otherSchool.teacher.id}`;
      for (const dbName of [myDb, school.institute.graph_db_name, "no-such-database"]) {
        const response = await read(otherSchool.teacher.token, query({ path: ownNode, db_name: dbName }));
        expect(response.status, dbName).toBe(403);
        expect((await write(otherSchool.teacher.token, query({ path: ownNode, db_name: dbName }), JSON.stringify(snapshotWith("x")))).status).toBe(403);
      }
      // Their own node in their own school's database is theirs.
      expect((await read(otherSchool.teacher.token, query({ path: ownNode, db_name: otherSchool.institute.graph_db_name }))).status).toBe(200);
    });

    it("refuses a db_name that is not a graph database name with 400, before anything is stored", async () => {
      for (const dbName of ["../x", "a/b", "..", "School-X", "x", "a b", "ab\\c", `${"a".repeat(64)}`]) {
        const response = await read(me.token, query({ path: userPath(), db_name: dbName }));
        expect(response.status, dbName).toBe(400);
        expect((await response.json()).detail).toMatch(/^Database name: must be a graph database name/);
      }
    });

    it("tRPC: the same separation for the web app", async () => {
      const a = createCaller({ db: database().db, user: { id: me.id } });
      const b = createCaller({ db: database().db, user: { id: otherSchool.teacher.id } });
      const lesson = `${BUCKET}/Lesson/trpc-${Date.now()}`;
      await a.snapshots.put({ path: lesson, db_name: school.institute.curriculum_db_name, snapshot: snapshotWith("A-TRPC") });
      const bLocation = { path: lesson, db_name: otherSchool.institute.curriculum_db_name };
      expect(await b.snapshots.get(bLocation)).toEqual({ snapshot: emptyCanvasSnapshot(), source: "default" });
      await b.snapshots.put({ ...bLocation, snapshot: snapshotWith("B-TRPC") });
      const stillA = await a.snapshots.get({ path: lesson, db_name: school.institute.curriculum_db_name });
      expect(JSON.stringify(stillA.snapshot)).toContain("A-TRPC");
      expect(JSON.stringify(stillA.snapshot)).not.toContain("B-TRPC");

      const personal = `${BUCKET}/Teacher/${me.id}`;
      await a.snapshots.put({ path: personal, db_name: myDb, snapshot: snapshotWith("A-TRPC-PERSONAL") });
      const seenByB = await b.snapshots.get({ path: personal, db_name: otherSchool.teacher.user_db_name });
      expect(JSON.stringify(seenByB.snapshot)).not.toContain("A-TRPC-PERSONAL");
      await expect(b.snapshots.get({ path: `${BUCKET}/Teacher/${otherSchool.teacher.id}`, db_name: myDb })).rejects.toMatchObject({ code: "FORBIDDEN" });
    });
  });
});
