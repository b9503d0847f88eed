/**
 * bench:classroom — latency of the classroom endpoints under load, on PostgreSQL.
 *
 * Creates a fresh database (BENCH_DATABASE_URL or TEST_DATABASE_URL, an admin URL; dropped afterwards)
 * with a school of 2000 students in 80 classes of 25 and a graph node with 500 children, then drives the
 * real route handlers (bearer authentication, row-level security, JSON) with 32 concurrent clients:
 *   GET /me/bootstrap
 *   GET /database/timetable/classes               (the school's class list)
 *   GET /database/timetable/classes/school/students (all 2000 students)
 *   GET /graph/node/children                      (500 children)
 * It prints median and p99 per endpoint and writes them into docs/benchmarks.md.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { writeBenchmarkSection } from "./benchmarks-doc";

// The configuration is read on first use: give this run its own data folder and secret first.
const temporaryDataDir = process.env.DATA_DIR ? null : fs.mkdtempSync(path.join(os.tmpdir(), "markbook-bench-"));
if (temporaryDataDir) process.env.DATA_DIR = temporaryDataDir;
process.env.AUTH_SECRET ??= crypto.randomBytes(48).toString("base64url");
process.env.LOG_LEVEL ??= "error";

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const REQUESTS_PER_CLIENT = Number(process.env.BENCH_REQUESTS_PER_CLIENT ?? 60);
const WARMUP_PER_CLIENT = 5;
const STUDENTS = 2000;
const CLASS_SIZE = 25;
const GRAPH_CHILDREN = 500;

const databaseClient = await import("../server/db/client");
const { openDatabase, useDatabase } = databaseClient;
const { migrateDatabase } = await import("../server/db/migrate");
const { asService } = await import("../server/db/rls");
const { classes, enrollments, instituteMemberships, users } = await import("../server/db/schema");
const { createInstitute } = await import("../server/identity/institutes");
const { createUser } = await import("../server/identity/users");
const { signUserToken } = await import("../server/auth/tokens");
const { graphStore } = await import("../server/graph/index");
const { asUser } = await import("../server/db/rls");
const { authenticateBearer } = await import("../server/auth/authenticate");
const { getBootstrapProfile } = await import("../server/identity/users");
const { bootstrapProfileOutput } = await import("../server/identity/bootstrap-profile");
const { listSchoolClasses, schoolClassListOutput } = await import("../server/classroom/classes");
const { listSchoolStudents, schoolStudentsOutput } = await import("../server/classroom/school-students");
const { listGraphChildren } = await import("../server/classroom/graph-children");

/*
 * The route modules cannot be loaded by tsx here (server/http/rest.ts pulls in next-auth, whose CommonJS
 * default export tsx does not unwrap), so each request does what its route handler does: verify the
 * bearer token (signature + user lookup), run the domain function as the user, check the reply schema,
 * and serialise the JSON body.
 */
type Handler = (request: Request) => Promise<Response>;
const asRoute =
  (run: (userId: string, url: URL) => Promise<unknown>): Handler =>
  async (request) => {
    const { db } = await getDatabase();
    const user = await authenticateBearer(db, request.headers.get("authorization"));
    return Response.json(await run(user.id, new URL(request.url)));
  };
let getDatabase: () => Promise<Database>;
const bootstrapRoute = asRoute(async (userId) => {
  const { db } = await getDatabase();
  return bootstrapProfileOutput.parse(await asUser(db, userId, (tx) => getBootstrapProfile(tx, userId)));
});
const schoolClassesRoute = asRoute(async (userId) => {
  const { db } = await getDatabase();
  return schoolClassListOutput.parse(await asUser(db, userId, (tx) => listSchoolClasses(tx, userId)));
});
const schoolStudentsRoute = asRoute(async (userId) => {
  const { db } = await getDatabase();
  return schoolStudentsOutput.parse(await asUser(db, userId, (tx) => listSchoolStudents(tx, userId)));
});
const graphChildrenRoute = asRoute(async (userId, url) => {
  const { db } = await getDatabase();
  return listGraphChildren(db, userId, {
    neo4j_node_id: url.searchParams.get("neo4j_node_id")!,
    neo4j_db_name: url.searchParams.get("neo4j_db_name")!,
  });
});

type Database = Awaited<ReturnType<typeof openDatabase>>;

async function seed(database: Database) {
  const { db } = database;
  return asService(db, async (tx) => {
    const institute = await createInstitute(tx, { name: "Bench Academy" });
    const admin = await createUser(tx, { email: "admin@bench.example.org", fullName: "Bench Admin", instituteId: institute.id, role: "school_admin" });
    const studentRows = Array.from({ length: STUDENTS }, (_, index) => {
      const id = crypto.randomUUID();
      const number = String(index).padStart(4, "0");
      return {
        id,
        email: `student${number}@bench.example.org`,
        user_type: "student" as const,
        username: `student${number}`,
        full_name: `Student ${number} Bench`,
        display_name: `Student ${number}`,
        user_db_name: `user-${id.replaceAll("-", "")}`,
        school_id: institute.id,
      };
    });
    for (let offset = 0; offset < studentRows.length; offset += 500) {
      const chunk = studentRows.slice(offset, offset + 500);
      await tx.insert(users).values(chunk);
      await tx.insert(instituteMemberships).values(chunk.map((student) => ({ institute_id: institute.id, user_id: student.id, role: "student" as const })));
    }
    const classRows = await tx
      .insert(classes)
      .values(Array.from({ length: STUDENTS / CLASS_SIZE }, (_, index) => ({ institute_id: institute.id, name: `Class ${String(index + 1).padStart(2, "0")}`, teacher_id: admin.id })))
      .returning({ id: classes.id });
    await tx.insert(enrollments).values(studentRows.map((student, index) => ({ class_id: classRows[Math.floor(index / CLASS_SIZE)]!.id, student_id: student.id })));

    const parent = { label: "Department", key: "bench-department" };
    await graphStore(tx).write(institute.graph_db_name, async (writer) => {
      await writer.upsertNodes([
        { ...parent, properties: { name: "Bench department" } },
        ...Array.from({ length: GRAPH_CHILDREN }, (_, index) => ({ label: "Topic", key: `bench-topic-${index}`, properties: { name: `Topic ${index}`, order: index } })),
      ]);
      await writer.upsertRelationships(
        Array.from({ length: GRAPH_CHILDREN }, (_, index) => ({ from: parent, type: "HAS_TOPIC", to: { label: "Topic", key: `bench-topic-${index}` } })),
      );
    });
    return { institute, admin, parentKey: parent.key };
  });
}

interface Figures {
  median: number;
  p99: number;
  throughput: number;
}

/** `clients` clients, each sending its requests one after another; latency of every request. */
async function drive(send: () => Promise<Response>, check: (body: unknown) => void, clients: number): Promise<Figures> {
  const once = async () => {
    const response = await send();
    if (response.status !== 200) throw new Error(`unexpected status ${response.status}: ${await response.text()}`);
    return response.json();
  };
  check(await once());
  await Promise.all(Array.from({ length: clients }, async () => {
    for (let index = 0; index < WARMUP_PER_CLIENT; index += 1) await once();
  }));
  const samples: number[] = [];
  const started = performance.now();
  const requestsPerClient = Math.ceil((REQUESTS_PER_CLIENT * CLIENTS) / clients / 4);
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let index = 0; index < (clients === CLIENTS ? REQUESTS_PER_CLIENT : requestsPerClient); index += 1) {
        const start = performance.now();
        await once();
        samples.push(performance.now() - start);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  samples.sort((a, b) => a - b);
  return {
    median: samples[Math.floor(samples.length / 2)]!,
    p99: samples[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))]!,
    throughput: samples.length / elapsed,
  };
}

const sectionIntro = "## bench:classroom — classroom endpoints under 32 concurrent clients\n\n`npm run bench:classroom` (PostgreSQL from `BENCH_DATABASE_URL` or `TEST_DATABASE_URL`).";

async function main() {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    console.error("bench:classroom measures PostgreSQL: set BENCH_DATABASE_URL (or TEST_DATABASE_URL) to an admin URL.");
    process.exit(2);
  }
  const name = `markbook_bench_${crypto.randomBytes(4).toString("hex")}`;
  const admin = await openDatabase({ kind: "postgres", url: adminUrl, poolMax: 1 });
  await admin.db.execute(sql.raw(`create database ${name}`));
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const poolMax = Number(process.env.BENCH_POOL_MAX ?? 16);
  const database = await openDatabase({ kind: "postgres", url: url.toString(), poolMax });
  try {
    await migrateDatabase(database);
    useDatabase(database);
    getDatabase = databaseClient.getDatabase;
    const { institute, admin: adminUser, parentKey } = await seed(database);
    // Fresh statistics, as autovacuum keeps them on a live database; without them the planner guesses
    // a handful of rows and scans every user.
    await database.db.execute(sql`analyze users, institute_memberships, institutes, classes, enrollments, graph_nodes, graph_edges`);
    const token = await signUserToken({ userId: adminUser.id, ttlSeconds: 3600 });
    const get = (route: (request: Request) => Promise<Response>, pathAndQuery: string) => () =>
      route(new Request(`http://localhost${pathAndQuery}`, { headers: { authorization: `Bearer ${token}` } }));
    const expectLength = (member: string, length: number) => (body: unknown) => {
      const list = (body as Record<string, unknown[]>)[member];
      if (list?.length !== length) throw new Error(`expected ${length} ${member}, got ${list?.length}`);
    };
    const scenarios: Array<[string, () => Promise<Response>, (body: unknown) => void]> = [
      ["GET /me/bootstrap", get(bootstrapRoute, "/me/bootstrap"), (body) => {
        if ((body as { id?: string }).id !== adminUser.id) throw new Error("wrong profile");
      }],
      ["GET /database/timetable/classes (80 classes, 2000 students)", get(schoolClassesRoute, "/database/timetable/classes"), expectLength("classes", STUDENTS / CLASS_SIZE)],
      ["GET /database/timetable/classes/school/students (2000)", get(schoolStudentsRoute, "/database/timetable/classes/school/students"), expectLength("students", STUDENTS)],
      [
        `GET /graph/node/children (${GRAPH_CHILDREN} children)`,
        get(graphChildrenRoute, `/graph/node/children?neo4j_node_id=${parentKey}&neo4j_db_name=${institute.graph_db_name}`),
        expectLength("children", GRAPH_CHILDREN),
      ],
    ];
    const rows: string[] = [];
    for (const [label, send, check] of scenarios) {
      const alone = await drive(send, check, 1);
      const figures = await drive(send, check, CLIENTS);
      const line =
        `| ${label} | ${alone.median.toFixed(1)} ms | ${alone.p99.toFixed(1)} ms | ${figures.median.toFixed(1)} ms | ` +
        `${figures.p99.toFixed(1)} ms | ${figures.throughput.toFixed(0)}/s | ${figures.p99 <= 30 ? "yes" : "no"} |`;
      rows.push(line);
      console.log(line);
    }
    const report = [
      `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}, ` +
        `PostgreSQL on loopback (postgres.js, pool of ${poolMax}); graph: ${process.env.NEO4J_URI ? "Neo4j" : "embedded tables"}. ` +
        `${CLIENTS} concurrent clients × ${REQUESTS_PER_CLIENT} requests per endpoint after ${WARMUP_PER_CLIENT} warm-up requests each, ` +
        "in-process, each request doing its route handler's work (bearer token check with user lookup, row-level security, reply schema, JSON body; no HTTP socket). " +
        `Load average when done: ${os.loadavg().map((load) => load.toFixed(1)).join(" / ")} (1 / 5 / 15 min; anything else running on the machine inflates the figures).`,
      "",
      `| endpoint | 1 client: median | 1 client: p99 | ${CLIENTS} clients: median | ${CLIENTS} clients: p99 | ${CLIENTS} clients: throughput | p99 ≤ 30 ms at ${CLIENTS} |`,
      "| --- | --- | --- | --- | --- | --- | --- |",
      ...rows,
    ].join("\n");
    writeBenchmarkSection("bench:classroom", report, sectionIntro);
  } finally {
    await database.close();
    await admin.db.execute(sql.raw(`drop database if exists ${name} with (force)`));
    await admin.close();
  }
}


try {
  await main();
} finally {
  if (temporaryDataDir) fs.rmSync(temporaryDataDir, { recursive: true, force: true });
}
