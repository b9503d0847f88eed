import crypto from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { GET as bootstrapRoute } from "../app/me/bootstrap/route";
import { GET as classStudentsRoute, POST as addStudentRoute } from "../app/database/timetable/classes/[class_id]/students/route";
import { GET as schoolClassesRoute } from "../app/database/timetable/classes/route";
import { GET as schoolStudentsRoute } from "../app/database/timetable/classes/school/students/route";
import { GET as graphChildrenRoute } from "../app/graph/node/children/route";
import { ByteBoundedLru, replyCacheUsage } from "../server/http/reply-cache";
import { asService, asUser } from "../server/db/rls";
import { instituteMemberships, users } from "../server/db/schema";
import { graphStore } from "../server/graph/index";
import { createUser } from "../server/identity/users";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";

type Route = (request: Request) => Promise<Response>;

const get = (route: Route, path: string, token: string, headers: Record<string, string> = {}) =>
  route(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${token}`, ...headers } }));

const STUDENTS = "/database/timetable/classes/school/students";
const CLASSES = "/database/timetable/classes";
const classStudentsPath = (classId: string) => `/database/timetable/classes/${classId}/students`;
const getClassStudents = (classId: string, token: string, headers: Record<string, string> = {}) =>
  classStudentsRoute(new Request(`http://localhost${classStudentsPath(classId)}`, { headers: { authorization: `Bearer ${token}`, ...headers } }), {
    params: Promise.resolve({ class_id: classId }),
  });

async function json(response: Response) {
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^application\/json/);
  return response.json();
}

const namesOf = (body: { students: Array<{ full_name: string }> }) => body.students.map((student) => student.full_name);

describeOnEachDatabase("the reply cache of the classroom lists", (database) => {
  let school: School;
  let otherSchool: School;
  let mathsId: string;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const newStudent = (of: School, fullName: string) =>
    asService(database().db, (tx) =>
      createUser(tx, { email: `${crypto.randomUUID()}@example.org`, fullName, instituteId: of.institute.id, role: "student" }),
    );

  beforeAll(async () => {
    school = await createSchool(database().db, "Cached");
    otherSchool = await createSchool(database().db, "Elsewhere");
    mathsId = (await as(school.admin).classes.create({ name: "Maths", teacherId: school.teacher.id })).id;
    await as(school.admin).classes.addStudent({ classId: mathsId, studentId: school.student.id });
  });

  describe("ETag and If-None-Match", () => {
    it("gives every list a strong ETag and answers a matching If-None-Match with 304 and no body", async () => {
      for (const route of [
        () => get(schoolStudentsRoute, STUDENTS, school.teacher.token),
        () => get(schoolClassesRoute, CLASSES, school.teacher.token),
        () => get(bootstrapRoute, "/me/bootstrap", school.teacher.token),
      ]) {
        const first = await route();
        expect(first.status).toBe(200);
        const etag = first.headers.get("etag")!;
        expect(etag).toMatch(/^"[A-Za-z0-9_-]{20,}"$/);
        expect(first.headers.get("cache-control")).toBe("private, no-cache");
        await first.arrayBuffer();
        // The same reply again: the same tag.
        const again = await route();
        expect(again.headers.get("etag")).toBe(etag);
        await again.arrayBuffer();
      }

      const { headers } = await get(schoolStudentsRoute, STUDENTS, school.admin.token);
      const etag = headers.get("etag")!;
      for (const ifNoneMatch of [etag, `W/${etag}`, `"something-else", ${etag}`, "*"]) {
        const notModified = await get(schoolStudentsRoute, STUDENTS, school.admin.token, { "if-none-match": ifNoneMatch });
        expect(notModified.status).toBe(304);
        expect(notModified.headers.get("etag")).toBe(etag);
        expect(await notModified.text()).toBe("");
      }
      const modified = await get(schoolStudentsRoute, STUDENTS, school.admin.token, { "if-none-match": '"an-older-reply"' });
      expect(modified.status).toBe(200);
      expect(namesOf(await modified.json())).toContain(school.student.full_name);
    });

    it("answers 200 with the new reply, and a new ETag, once the list changed", async () => {
      const before = await get(schoolStudentsRoute, STUDENTS, school.teacher.token);
      const etag = before.headers.get("etag")!;
      await before.arrayBuffer();
      await newStudent(school, "Aaron Newcomer");
      const after = await get(schoolStudentsRoute, STUDENTS, school.teacher.token, { "if-none-match": etag });
      expect(after.status).toBe(200);
      expect(after.headers.get("etag")).not.toBe(etag);
      expect(namesOf(await after.json())[0]).toBe("Aaron Newcomer");
    });

    it("keeps the errors as they were: 401 without a token, 404 for a malformed or unknown class", async () => {
      const anonymous = await schoolStudentsRoute(new Request(`http://localhost${STUDENTS}`));
      expect(anonymous.status).toBe(401);
      expect(await anonymous.json()).toHaveProperty("detail");
      const malformed = await getClassStudents("not-a-class", school.admin.token);
      expect(malformed.status).toBe(404);
      const unknown = await getClassStudents(crypto.randomUUID(), school.admin.token);
      expect(unknown.status).toBe(404);
      // A class of another school reads as 404, even once its staff have it cached.
      const theirClass = (await as(otherSchool.admin).classes.create({ name: "Theirs" })).id;
      expect((await getClassStudents(theirClass, otherSchool.admin.token)).status).toBe(200);
      expect((await getClassStudents(theirClass, school.admin.token)).status).toBe(404);
    });
  });

  describe("the cached reply follows every write that changes it", () => {
    it("a new student of the school", async () => {
      expect(namesOf(await json(await get(schoolStudentsRoute, STUDENTS, school.admin.token)))).not.toContain("Zoe Latecomer");
      await newStudent(school, "Zoe Latecomer");
      expect(namesOf(await json(await get(schoolStudentsRoute, STUDENTS, school.admin.token)))).toContain("Zoe Latecomer");
    });

    it("a renamed user: in the students list, a class roster, the class list's teacher name and their own profile", async () => {
      const { db } = database();
      // Fill the cache first.
      await json(await get(schoolStudentsRoute, STUDENTS, school.admin.token));
      await json(await getClassStudents(mathsId, school.admin.token));
      await json(await get(schoolClassesRoute, CLASSES, school.admin.token));
      await json(await get(bootstrapRoute, "/me/bootstrap", school.student.token));

      await asService(db, (tx) => tx.update(users).set({ full_name: "Renamed Student" }).where(eq(users.id, school.student.id)));
      expect(namesOf(await json(await get(schoolStudentsRoute, STUDENTS, school.admin.token)))).toContain("Renamed Student");
      expect(namesOf(await json(await getClassStudents(mathsId, school.admin.token)))).toEqual(["Renamed Student"]);
      expect((await json(await get(bootstrapRoute, "/me/bootstrap", school.student.token))).full_name).toBe("Renamed Student");

      // The user's own change, as themself under row-level security.
      await asUser(db, school.student.id, (tx) => tx.update(users).set({ display_name: "Ren" }).where(eq(users.id, school.student.id)));
      expect((await json(await get(bootstrapRoute, "/me/bootstrap", school.student.token))).display_name).toBe("Ren");
      const listed = await json(await get(schoolStudentsRoute, STUDENTS, school.admin.token));
      expect(listed.students.find((student: { id: string }) => student.id === school.student.id).display_name).toBe("Ren");

      await asService(db, (tx) => tx.update(users).set({ full_name: "Tina Teacher" }).where(eq(users.id, school.teacher.id)));
      const classList = await json(await get(schoolClassesRoute, CLASSES, school.admin.token));
      expect(classList.classes.find((row: { id: string }) => row.id === mathsId).teacher_name).toBe("Tina Teacher");
    });

    it("an enrollment added, then removed", async () => {
      const pupil = await newStudent(school, "Eve Enrolled");
      expect(namesOf(await json(await getClassStudents(mathsId, school.teacher.token)))).not.toContain("Eve Enrolled");
      const added = await addStudentRoute(
        new Request(`http://localhost${classStudentsPath(mathsId)}`, {
          method: "POST",
          headers: { authorization: `Bearer ${school.admin.token}`, "content-type": "application/json" },
          body: JSON.stringify({ student_id: pupil.id }),
        }),
        { params: Promise.resolve({ class_id: mathsId }) },
      );
      expect(added.status).toBe(200);
      expect(namesOf(await json(await getClassStudents(mathsId, school.teacher.token)))).toContain("Eve Enrolled");
      await as(school.admin).classes.removeStudent({ classId: mathsId, studentId: pupil.id });
      expect(namesOf(await json(await getClassStudents(mathsId, school.teacher.token)))).not.toContain("Eve Enrolled");
      // Still there with include_inactive, which is an entry of its own.
      const withInactive = await json(
        await classStudentsRoute(
          new Request(`http://localhost${classStudentsPath(mathsId)}?include_inactive=true`, { headers: { authorization: `Bearer ${school.teacher.token}` } }),
          { params: Promise.resolve({ class_id: mathsId }) },
        ),
      );
      expect(withInactive.students.find((student: { full_name: string }) => student.full_name === "Eve Enrolled").active).toBe(false);
    });

    it("a class added, and a class renamed", async () => {
      const before = await json(await get(schoolClassesRoute, CLASSES, school.teacher.token));
      const created = await as(school.admin).classes.create({ name: "Zoology" });
      const after = await json(await get(schoolClassesRoute, CLASSES, school.teacher.token));
      expect(after.total).toBe(before.total + 1);
      expect(after.classes.map((row: { name: string }) => row.name)).toContain("Zoology");
      await as(school.admin).classes.rename({ classId: created.id, name: "Zoology A" });
      const renamed = await json(await get(schoolClassesRoute, CLASSES, school.teacher.token));
      expect(renamed.classes.map((row: { name: string }) => row.name)).toEqual(expect.arrayContaining(["Zoology A"]));
      expect(renamed.classes.map((row: { name: string }) => row.name)).not.toContain("Zoology");
    });

    it("a graph child added, and one removed", async () => {
      const { db } = database();
      const graph = school.institute.graph_db_name;
      await graphStore(db).write(graph, (writer) => writer.upsertNodes([{ label: "Department", key: "science", properties: { name: "Science" } }]));
      const path = `/graph/node/children?neo4j_node_id=science&neo4j_db_name=${graph}`;
      expect((await json(await get(graphChildrenRoute, path, school.teacher.token))).children).toEqual([]);
      await graphStore(db).write(graph, async (writer) => {
        await writer.upsertNodes([{ label: "Subject", key: "physics", properties: { name: "Physics" } }]);
        await writer.upsertRelationships([{ from: { label: "Department", key: "science" }, type: "HAS_SUBJECT", to: { label: "Subject", key: "physics" } }]);
      });
      const children = (await json(await get(graphChildrenRoute, path, school.teacher.token))).children;
      expect(children.map((child: { neo4j_node_id: string }) => child.neo4j_node_id)).toEqual(["physics"]);
      // A property of a child changes the reply too.
      await graphStore(db).write(graph, (writer) => writer.upsertNodes([{ label: "Subject", key: "physics", properties: { name: "Physics (triple)" } }]));
      expect((await json(await get(graphChildrenRoute, path, school.student.token))).children[0].properties.name).toBe("Physics (triple)");
      await db.execute(sql`delete from graph_edges where db_name = ${graph} and from_id = 'science'`);
      expect((await json(await get(graphChildrenRoute, path, school.teacher.token))).children).toEqual([]);
    });

    it("any write to the tables, not only the app's domain functions (another process, the CLI, plain SQL)", async () => {
      const { db } = database();
      await json(await get(schoolStudentsRoute, STUDENTS, school.admin.token));
      await db.execute(sql`update users set full_name = 'Written By SQL' where id = ${school.otherStudent.id}`);
      expect(namesOf(await json(await get(schoolStudentsRoute, STUDENTS, school.admin.token)))).toContain("Written By SQL");
    });

    it("a password change alone leaves the cached reply and its ETag as they were", async () => {
      const { db } = database();
      const before = await get(schoolStudentsRoute, STUDENTS, school.admin.token);
      const etag = before.headers.get("etag");
      await before.arrayBuffer();
      await db.execute(sql`update users set password_hash = 'not-a-real-hash' where id = ${school.student.id}`);
      const after = await get(schoolStudentsRoute, STUDENTS, school.admin.token, { "if-none-match": etag! });
      expect(after.status).toBe(304);
    });
  });

  describe("who shares a reply", () => {
    it("a student never gets the staff reply: they see themself only, and the staff ETag does not match theirs", async () => {
      const staffReply = await get(schoolStudentsRoute, STUDENTS, school.admin.token);
      const staffEtag = staffReply.headers.get("etag")!;
      expect((await staffReply.json()).students.length).toBeGreaterThan(2);
      for (let round = 0; round < 2; round++) {
        const mine = await get(schoolStudentsRoute, STUDENTS, school.otherStudent.token, { "if-none-match": staffEtag });
        expect(mine.status).toBe(200);
        expect((await mine.json()).students.map((student: { id: string }) => student.id)).toEqual([school.otherStudent.id]);
      }
      // The roster: a student sees their own enrollment only, whatever the staff have cached.
      await json(await getClassStudents(mathsId, school.teacher.token));
      await as(school.admin).classes.addStudent({ classId: mathsId, studentId: school.otherStudent.id });
      const roster = await json(await getClassStudents(mathsId, school.otherStudent.token));
      expect(roster.students.map((student: { id: string }) => student.id)).toEqual([school.otherStudent.id]);
    });

    it("two students of one school never share either: each sees themself only", async () => {
      for (const [first, second] of [
        [school.student, school.otherStudent],
        [school.otherStudent, school.student],
      ] as const) {
        expect((await json(await get(schoolStudentsRoute, STUDENTS, first.token))).students.map((row: { id: string }) => row.id)).toEqual([first.id]);
        expect((await json(await get(schoolStudentsRoute, STUDENTS, second.token))).students.map((row: { id: string }) => row.id)).toEqual([second.id]);
        expect((await json(await getClassStudents(mathsId, second.token))).students.map((row: { id: string }) => row.id)).toEqual([second.id]);
      }
    });

    it("two schools never share: each school's staff get their own school's lists", async () => {
      await newStudent(otherSchool, "Only Elsewhere");
      const ours = namesOf(await json(await get(schoolStudentsRoute, STUDENTS, school.admin.token)));
      const theirs = namesOf(await json(await get(schoolStudentsRoute, STUDENTS, otherSchool.admin.token)));
      expect(theirs).toContain("Only Elsewhere");
      expect(ours).not.toContain("Only Elsewhere");
      expect(theirs).not.toContain(ours[0]);
      const ourClasses = (await json(await get(schoolClassesRoute, CLASSES, school.teacher.token))).classes;
      const theirClasses = (await json(await get(schoolClassesRoute, CLASSES, otherSchool.teacher.token))).classes;
      expect(ourClasses.map((row: { id: string }) => row.id)).toContain(mathsId);
      expect(theirClasses.map((row: { id: string }) => row.id)).not.toContain(mathsId);
    });

    it("a member of staff who loses their staff role stops getting the staff reply", async () => {
      const { db } = database();
      const colleague = school.otherTeacher;
      expect((await json(await get(schoolStudentsRoute, STUDENTS, colleague.token))).students.length).toBeGreaterThan(1);
      await asService(db, (tx) => tx.delete(instituteMemberships).where(eq(instituteMemberships.user_id, colleague.id)));
      expect(await json(await get(schoolStudentsRoute, STUDENTS, colleague.token))).toEqual({ students: [] });
      expect(await json(await get(schoolClassesRoute, CLASSES, colleague.token))).toEqual({ classes: [], total: 0 });
    });

    it("checks graph access for every caller, even when the children are cached", async () => {
      const graph = school.institute.graph_db_name;
      const path = `/graph/node/children?neo4j_node_id=science&neo4j_db_name=${graph}`;
      await json(await get(graphChildrenRoute, path, school.teacher.token));
      const outsider = await get(graphChildrenRoute, path, otherSchool.teacher.token);
      expect(outsider.status).toBe(403);
      expect(await outsider.json()).toHaveProperty("detail");
    });

    it("computes the reply again if a body's bytes were transferred away (they are the cache's own)", async () => {
      const first = await get(schoolStudentsRoute, STUDENTS, school.admin.token);
      const { value: chunk } = await first.body!.getReader().read();
      const expected = chunk!.byteLength;
      structuredClone(chunk!.buffer, { transfer: [chunk!.buffer] });
      expect(chunk!.byteLength).toBe(0);
      const again = await get(schoolStudentsRoute, STUDENTS, school.admin.token);
      expect((await again.arrayBuffer()).byteLength).toBe(expected);
    });

    it("holds the shared replies in memory (one entry for all staff of a school)", async () => {
      const { db } = database();
      await json(await get(schoolStudentsRoute, STUDENTS, school.admin.token));
      const before = replyCacheUsage(db);
      await json(await get(schoolStudentsRoute, STUDENTS, school.head.token));
      await json(await get(schoolStudentsRoute, STUDENTS, school.teacher.token));
      expect(replyCacheUsage(db)).toEqual(before);
      expect(before.bytes).toBeGreaterThan(0);
    });
  });
});

describe("ByteBoundedLru", () => {
  const entry = (size: number) => ({ size });

  it("evicts the least recently used entries once the bytes exceed the bound", () => {
    const lru = new ByteBoundedLru<{ size: number }>(1000);
    lru.set("a", entry(200));
    lru.set("b", entry(200));
    lru.set("c", entry(200));
    lru.get("a"); // a is now the most recently used
    lru.set("d", entry(200));
    lru.set("e", entry(200));
    expect(lru.bytes).toBe(1000);
    lru.set("f", entry(200));
    expect(lru.get("b")).toBeUndefined();
    expect(lru.get("a")).toBeDefined();
    expect(lru.bytes).toBe(1000);
    expect(lru.size).toBe(5);
  });

  it("replaces an entry under the same key without counting it twice", () => {
    const lru = new ByteBoundedLru<{ size: number }>(1000);
    lru.set("a", entry(100));
    lru.set("a", entry(150));
    expect(lru.bytes).toBe(150);
    expect(lru.size).toBe(1);
  });

  it("does not keep an entry larger than a quarter of the bound", () => {
    const lru = new ByteBoundedLru<{ size: number }>(1000);
    lru.set("a", entry(100));
    lru.set("huge", entry(251));
    expect(lru.get("huge")).toBeUndefined();
    expect(lru.get("a")).toBeDefined();
    expect(lru.bytes).toBe(100);
  });
});
