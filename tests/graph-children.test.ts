import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { GET } from "../app/graph/node/children/route";
import { signUserToken } from "../server/auth/tokens";
import { asService } from "../server/db/rls";
import { institutes, users } from "../server/db/schema";
import { demoPaper } from "../server/exam/demo-paper";
import { seedDemoSchool } from "../server/demo/seed";
import { CURRICULUM_ROOT_KEY, departmentKey } from "../server/demo/graph";
import { graphStore } from "../server/graph/index";
import { createUser } from "../server/identity/users";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";

// The seed stores the demo paper's PDF under DATA_DIR: keep it out of the work tree.
process.env.DATA_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-graph-children-"));

const GLOBAL = "global";

describeOnEachDatabase("GET /graph/node/children", (database) => {
  let demo: typeof institutes.$inferSelect;
  let teacher: typeof users.$inferSelect & { token: string };
  let student: typeof users.$inferSelect & { token: string };
  let otherSchool: School;

  beforeAll(async () => {
    const { db } = database();
    const { instituteId } = await seedDemoSchool(db);
    const person = async (email: string) => {
      const [row] = await asService(db, (tx) => tx.select().from(users).where(eq(users.email, email)));
      return { ...row!, token: await signUserToken({ userId: row!.id, ttlSeconds: 600 }) };
    };
    [demo] = (await asService(db, (tx) => tx.select().from(institutes).where(eq(institutes.id, instituteId)))) as [typeof demo];
    teacher = await person("teacher@northfield.example");
    student = await person("student01@northfield.example");
    otherSchool = await createSchool(db, "Other");
    // Something outside the calendar in the global database, and a node in the other school's graph.
    await graphStore(db).write(GLOBAL, (writer) => writer.upsertNodes([{ label: "Announcement", key: "announcement-1" }]));
    await graphStore(db).write(otherSchool.institute.graph_db_name, (writer) =>
      writer.upsertNodes([{ label: "School", key: otherSchool.institute.id, properties: { name: "Other" } }]),
    );
  });

  const children = (token: string | null, query: Record<string, string>) =>
    GET(
      new Request(`http://localhost/graph/node/children?${new URLSearchParams(query)}`, {
        headers: token ? { authorization: `Bearer ${token}` } : {},
      }),
    );

  async function namesOf(response: Response) {
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.status).toBe("success");
    return body.children.map((child: { properties: { name: string } }) => child.properties.name);
  }

  it("lists children in the caller's personal graph database, with the documented child shape", async () => {
    const response = await children(student.token, { neo4j_node_id: student.id, neo4j_db_name: student.user_db_name });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body).toEqual({
      status: "success",
      children: [
        {
          neo4j_node_id: expect.any(String),
          node_type: "Class",
          labels: ["Class"],
          relationship: "ENROLLED_IN",
          has_children: false,
          properties: { name: "10A Mathematics", subject: "Mathematics", school_db_name: demo.graph_db_name },
        },
      ],
    });
    // A teacher's timetable has lessons below it: an expandable child.
    const teacherChildren = await (await children(teacher.token, { neo4j_node_id: teacher.id, neo4j_db_name: teacher.user_db_name })).json();
    expect(teacherChildren.children.find((child: { node_type: string }) => child.node_type === "UserTeacherTimetable")).toMatchObject({
      has_children: true,
    });
  });

  it("lists the school's departments and classes in the institute graph database, for staff and students", async () => {
    for (const caller of [teacher, student]) {
      expect(await namesOf(await children(caller.token, { neo4j_node_id: demo.id, neo4j_db_name: demo.graph_db_name, node_type: "Department" }))).toEqual([
        "Mathematics",
        "Science",
      ]);
    }
    expect(
      await namesOf(await children(teacher.token, { neo4j_node_id: departmentKey("Science"), neo4j_db_name: demo.graph_db_name })),
    ).toEqual(["11A Physics"]);
  });

  it("lists subjects and specification points in the institute's curriculum graph database", async () => {
    expect(await namesOf(await children(teacher.token, { neo4j_node_id: CURRICULUM_ROOT_KEY, neo4j_db_name: demo.curriculum_db_name }))).toEqual([
      "Mathematics",
      "Physics",
    ]);
    const algebra = await namesOf(
      await children(student.token, { neo4j_node_id: "NAB-GCSE-MATH-2025/A", neo4j_db_name: demo.curriculum_db_name }),
    );
    expect(algebra).toHaveLength(2);
    expect(algebra[0]).toMatch(/binomials/);
    // The demo template's projection lives there too.
    expect(
      await namesOf(await children(teacher.token, { neo4j_node_id: demoPaper.examCode, neo4j_db_name: demo.curriculum_db_name, node_type: "Question" })),
    ).toEqual(["1", "2", "3", "4"]);
  });

  it("lists calendar children in the global database when the request is for calendar node types", async () => {
    const months = await namesOf(await children(student.token, { neo4j_node_id: "calendar-2026", neo4j_db_name: GLOBAL, node_type: "CalendarMonth" }));
    expect(months).toHaveLength(12);
    expect(months[0]).toBe("January 2026");
    const bySection = await namesOf(await children(teacher.token, { neo4j_node_id: "calendar-2026-W02", neo4j_db_name: GLOBAL, section_id: "calendar" }));
    expect(bySection).toEqual(["Monday 5 January 2026", "Tuesday 6 January 2026", "Wednesday 7 January 2026", "Thursday 8 January 2026",
      "Friday 9 January 2026", "Saturday 10 January 2026", "Sunday 11 January 2026"]);
    // The global database answers for calendar nodes only, even with section_id=calendar.
    const outside = await children(teacher.token, { neo4j_node_id: "announcement-1", neo4j_db_name: GLOBAL, section_id: "calendar" });
    expect(outside.status).toBe(404);
  });

  it("answers 403 for the global database without a calendar node type", async () => {
    for (const query of [
      { neo4j_node_id: "calendar-2026", neo4j_db_name: GLOBAL } as Record<string, string>,
      { neo4j_node_id: "calendar-2026", neo4j_db_name: GLOBAL, node_type: "Announcement" },
      { neo4j_node_id: "calendar-2026", neo4j_db_name: GLOBAL, section_id: "timetable" },
    ]) {
      const response = await children(teacher.token, query);
      expect(response.status, JSON.stringify(query)).toBe(403);
      expect(await response.json()).toEqual({ detail: expect.stringMatching(/outside your scope/) });
    }
  });

  it("answers 403 for another user's, another school's or an unknown graph database", async () => {
    for (const query of [
      { neo4j_node_id: teacher.id, neo4j_db_name: teacher.user_db_name }, // the student asks for the teacher's
      { neo4j_node_id: otherSchool.institute.id, neo4j_db_name: otherSchool.institute.graph_db_name },
      { neo4j_node_id: CURRICULUM_ROOT_KEY, neo4j_db_name: otherSchool.institute.curriculum_db_name },
      { neo4j_node_id: "x", neo4j_db_name: "no-such-database" },
      { neo4j_node_id: demo.id, neo4j_db_name: demo.graph_db_name.toUpperCase() },
    ]) {
      const response = await children(student.token, query);
      expect(response.status, JSON.stringify(query)).toBe(403);
    }
    // And the other way round: the demo school's graph is outside the other school's scope.
    const response = await children(otherSchool.teacher.token, { neo4j_node_id: demo.id, neo4j_db_name: demo.graph_db_name });
    expect(response.status).toBe(403);
  });

  it("lets a user without a school reach only their personal database", async () => {
    const loner = await asService(database().db, (tx) =>
      createUser(tx, { email: `loner.${crypto.randomUUID()}@example.org`, fullName: "Lone Ranger" }),
    );
    const token = await signUserToken({ userId: loner.id, ttlSeconds: 600 });
    // Allowed, but nothing was ever written there: 404, not 403.
    expect((await children(token, { neo4j_node_id: loner.id, neo4j_db_name: loner.user_db_name })).status).toBe(404);
    expect((await children(token, { neo4j_node_id: demo.id, neo4j_db_name: demo.graph_db_name })).status).toBe(403);
    expect((await children(token, { neo4j_node_id: "calendar-2026", neo4j_db_name: GLOBAL, section_id: "calendar" })).status).toBe(200);
  });

  it("answers 400 naming the missing parameter in words", async () => {
    for (const [query, missing] of [
      [{ neo4j_node_id: demo.id }, "Graph database name"],
      [{ neo4j_db_name: demo.graph_db_name }, "Graph node"],
      [{ neo4j_node_id: demo.id, neo4j_db_name: "" }, "Graph database name"],
      [{ neo4j_node_id: "  ", neo4j_db_name: demo.graph_db_name }, "Graph node"],
      [{}, "Graph node"],
    ] as const) {
      const response = await children(teacher.token, query);
      expect(response.status, JSON.stringify(query)).toBe(400);
      expect((await response.json()).detail).toMatch(new RegExp(`^${missing}`));
    }
  });

  it("answers 404 for a node that is not in an allowed database, and 401 without a token", async () => {
    const missing = await children(teacher.token, { neo4j_node_id: "no-such-node", neo4j_db_name: demo.graph_db_name });
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ detail: "Graph node not found" });
    const anonymous = await children(null, { neo4j_node_id: demo.id, neo4j_db_name: demo.graph_db_name });
    expect(anonymous.status).toBe(401);
  });

  it("answers the same through tRPC", async () => {
    const caller = createCaller({ db: database().db, user: { id: teacher.id } });
    const result = await caller.graph.children({ neo4j_node_id: demo.id, neo4j_db_name: demo.graph_db_name, node_type: "Department" });
    expect(result.children.map((child) => child.properties.name)).toEqual(["Mathematics", "Science"]);
    await expect(caller.graph.children({ neo4j_node_id: "calendar-2026", neo4j_db_name: GLOBAL })).rejects.toMatchObject({ code: "FORBIDDEN" });
    await expect(caller.graph.children({ neo4j_node_id: demo.id, neo4j_db_name: "" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
