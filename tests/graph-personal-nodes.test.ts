import crypto from "node:crypto";
import { eq, sql } from "drizzle-orm";
import { beforeAll, expect, it } from "vitest";
import { GET } from "../app/graph/node/children/route";
import { signUserToken } from "../server/auth/tokens";
import { asService } from "../server/db/rls";
import { users } from "../server/db/schema";
import { graphStore } from "../server/graph/index";
import { writeMissingPersonalNodes, writePersonalNodesJob } from "../server/graph/personal-node";
import { runDueJobs } from "../server/jobs/run";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";

/** `GET /graph/node/children` of a user's own node in their own personal graph, with their own token. */
async function ownChildren(user: { id: string; user_db_name: string }) {
  const token = await signUserToken({ userId: user.id, ttlSeconds: 600 });
  return GET(
    new Request(`http://localhost/graph/node/children?${new URLSearchParams({ neo4j_node_id: user.id, neo4j_db_name: user.user_db_name })}`, {
      headers: { authorization: `Bearer ${token}` },
    }),
  );
}

async function expectOwnNode(user: { id: string; user_db_name: string }) {
  const response = await ownChildren(user);
  expect(response.status).toBe(200);
  expect(await response.json()).toEqual({ status: "success", children: [] });
}

describeOnEachDatabase("every user has their own node in their personal graph", (database) => {
  let school: School;
  const admin = () => createCaller({ db: database().db, user: { id: school.admin.id } });
  const writeNodes = () => runDueJobs(database().db, { kinds: [writePersonalNodesJob] });
  const userByEmail = async (email: string) => {
    const [row] = await asService(database().db, (tx) => tx.select().from(users).where(sql`lower(${users.email}) = ${email}`));
    return row!;
  };

  beforeAll(async () => {
    school = await createSchool(database().db, "Nodes");
    await writeNodes();
  });

  it("writes the node of a person added on the People screen, once the job the creation queued has run", async () => {
    const email = `people.${crypto.randomBytes(4).toString("hex")}@example.org`;
    const person = await admin().people.add({ full_name: "Nora Node", email, role: "teacher" });
    const created = await userByEmail(email);
    // The creation's transaction queued the job; until it runs there is no node yet.
    expect((await ownChildren(created)).status).toBe(404);
    expect(await writeNodes()).toBe(1);
    await expectOwnNode(created);
    expect(person.id).toBe(created.id);
  });

  it("writes the nodes of the people a roster import created, with one job", async () => {
    const tag = crypto.randomBytes(4).toString("hex");
    const csv = `id,name,email\nS1-${tag},Ivy Imported,ivy.${tag}@example.org\nS2-${tag},Ike Imported,ike.${tag}@example.org\n`;
    await admin().rosterImport.commit({ files: [{ name: "pupils.csv", base64: Buffer.from(csv).toString("base64") }] });
    expect(await writeNodes()).toBe(1);
    await expectOwnNode(await userByEmail(`ivy.${tag}@example.org`));
    await expectOwnNode(await userByEmail(`ike.${tag}@example.org`));
  });

  it("writes the missing node of a user created before this version (the migration's backfill job), and only once", async () => {
    const { db } = database();
    const email = `older.${crypto.randomBytes(4).toString("hex")}@example.org`;
    await admin().people.add({ full_name: "Olde Timer", email, role: "student" });
    await writeNodes();
    const older = await userByEmail(email);
    // As a user of an earlier version: no node, and no personal_node_at.
    await asService(db, (tx) => tx.update(users).set({ personal_node_at: null }).where(eq(users.id, older.id)));
    await db.execute(sql`delete from graph_nodes where db_name = ${older.user_db_name}`);
    expect((await ownChildren(older)).status).toBe(404);
    expect(await writeMissingPersonalNodes(db)).toBe(1);
    await expectOwnNode(older);
    expect(await writeMissingPersonalNodes(db)).toBe(0);
  });

  it("carries the person's name, username and type, as the demo seed's User nodes do", async () => {
    const teacher = school.teacher;
    expect(await graphStore(database().db).getNode(teacher.user_db_name, teacher.id)).toMatchObject({
      labels: ["User"],
      properties: { name: teacher.full_name, username: teacher.username, user_type: "teacher" },
    });
  });
});
