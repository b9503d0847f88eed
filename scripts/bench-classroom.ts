/**
 * bench:classroom — latency of the classroom endpoints under load, on PostgreSQL.
 *
 * Creates a fresh database (BENCH_DATABASE_URL or TEST_DATABASE_URL, an admin URL; dropped afterwards)
 * with a school of 2000 students in 80 classes of 25 and a graph node with 500 children, then calls the
 * real route handlers (bearer authentication, row-level security, the reply cache, JSON) with Request
 * objects from 32 concurrent clients:
 *   GET /me/bootstrap
 *   GET /database/timetable/classes               (the school's class list)
 *   GET /database/timetable/classes/school/students (all 2000 students)
 *   GET /graph/node/children                      (500 children)
 * One reply per endpoint is parsed and checked (the right number of items); in the timed runs each client
 * reads the body's bytes and checks status, content type and length, as a load generator (wrk, k6) does,
 * without parsing the JSON in this process. It prints median and p99 per endpoint, CPU per request of
 * this process and of the PostgreSQL backends, and the latency of a request right after a write (the
 * reply recomputed), and writes them into docs/benchmarks.md.
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq, sql } from "drizzle-orm";
import { writeBenchmarkSection } from "./benchmarks-doc";
import { processesCpuMs } from "./process-cpu";

// The configuration is read on first use: give this run its own data folder and secret first.
const temporaryDataDir = process.env.DATA_DIR ? null : fs.mkdtempSync(path.join(os.tmpdir(), "markbook-bench-"));
if (temporaryDataDir) process.env.DATA_DIR = temporaryDataDir;
process.env.AUTH_SECRET ??= crypto.randomBytes(48).toString("base64url");
process.env.LOG_LEVEL ??= "error";

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
// 200 per client: 6400 samples at 32 clients, so the p99 is not the 19th-slowest of 1920.
const REQUESTS_PER_CLIENT = Number(process.env.BENCH_REQUESTS_PER_CLIENT ?? 200);
// Enough for the JIT to settle on the request path before the timed runs (a cached reply takes well under 1 ms).
const WARMUP_PER_CLIENT = 20;
const STUDENTS = 2000;
const CLASS_SIZE = 25;
const GRAPH_CHILDREN = 500;

const { openDatabase, useDatabase } = await import("../server/db/client");
const { migrateDatabase } = await import("../server/db/migrate");
const { asService } = await import("../server/db/rls");
const { classes, enrollments, instituteMemberships, users } = await import("../server/db/schema");
const { createInstitute } = await import("../server/identity/institutes");
const { createUser } = await import("../server/identity/users");
const { signUserToken } = await import("../server/auth/tokens");
const { graphStore } = await import("../server/graph/index");
// The route handlers themselves (their modules load next-auth only for cookie sessions).
const { GET: bootstrapRoute } = await import("../app/me/bootstrap/route");
const { GET: schoolClassesRoute } = await import("../app/database/timetable/classes/route");
const { GET: schoolStudentsRoute } = await import("../app/database/timetable/classes/school/students/route");
const { GET: graphChildrenRoute } = await import("../app/graph/node/children/route");

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
  /** CPU of this process per request (ms), the load generator's share included. */
  nodeCpuPerRequest: number;
  /** CPU of the PostgreSQL backends serving the bench database per request (ms). */
  postgresCpuPerRequest: number;
}

let backendPids: () => Promise<number[]> = async () => [];

interface CheckedReply {
  /** Bytes of the checked reply: every timed reply must have as many. */
  length: number;
}

/** One full reply, parsed and checked (status, JSON, the right number of items). */
async function checkReply(send: () => Promise<Response>, check: (body: unknown) => void): Promise<CheckedReply> {
  const response = await send();
  if (response.status !== 200) throw new Error(`unexpected status ${response.status}: ${await response.text()}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  check(JSON.parse(new TextDecoder().decode(bytes)));
  return { length: bytes.byteLength };
}

/** What a load generator does with a reply: checks status and content type, reads and counts the bytes. */
async function receive(response: Response, expectedLength?: number): Promise<void> {
  if (response.status !== 200) throw new Error(`unexpected status ${response.status}: ${await response.text()}`);
  if (!response.headers.get("content-type")?.startsWith("application/json")) {
    throw new Error(`unexpected content type ${response.headers.get("content-type")}`);
  }
  let length = 0;
  const reader = response.body!.getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) length += chunk.value.byteLength;
  if (expectedLength !== undefined && length !== expectedLength) throw new Error(`expected ${expectedLength} bytes, got ${length}`);
}

/** `clients` clients, each sending its requests one after another; latency of every request. */
async function drive(send: () => Promise<Response>, expected: CheckedReply, clients: number): Promise<Figures> {
  const once = async () => receive(await send(), expected.length);
  await Promise.all(Array.from({ length: clients }, async () => {
    for (let index = 0; index < WARMUP_PER_CLIENT; index += 1) await once();
  }));
  const samples: number[] = [];
  const pids = await backendPids();
  const postgresCpuBefore = processesCpuMs(pids);
  const nodeCpuBefore = process.cpuUsage();
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
  const nodeCpu = process.cpuUsage(nodeCpuBefore);
  const postgresCpuAfter = processesCpuMs(pids);
  samples.sort((a, b) => a - b);
  return {
    nodeCpuPerRequest: (nodeCpu.user + nodeCpu.system) / 1000 / samples.length,
    postgresCpuPerRequest: postgresCpuBefore === null || postgresCpuAfter === null ? Number.NaN : (postgresCpuAfter - postgresCpuBefore) / samples.length,
    median: samples[Math.floor(samples.length / 2)]!,
    p99: samples[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))]!,
    throughput: samples.length / elapsed,
  };
}

const WRITES = 15;

/** Median latency of one request right after a write that changes what the reply read (one client). */
async function afterWrite(send: () => Promise<Response>, write: (round: number) => Promise<unknown>): Promise<number> {
  const samples: number[] = [];
  for (let round = 0; round < WRITES; round += 1) {
    await write(round);
    const start = performance.now();
    await receive(await send());
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)]!;
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
    backendPids = async () => {
      const rows: unknown = await admin.db.execute(sql`select pid from pg_stat_activity where datname = ${name}`);
      return (rows as Array<{ pid: number }>).map((row) => row.pid);
    };
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
    const touchUser = (userId: string) => (round: number) =>
      asService(database.db, (tx) => tx.update(users).set({ display_name: `Touched ${round}` }).where(eq(users.id, userId)));
    const someStudent = (await database.db.select({ id: users.id }).from(users).where(eq(users.user_type, "student")).limit(1))[0]!;
    const touchGraph = (round: number) =>
      graphStore(database.db).write(institute.graph_db_name, (writer) =>
        writer.upsertNodes([{ label: "Department", key: parentKey, properties: { touched: round } }]),
      );
    const scenarios: Array<[string, () => Promise<Response>, (body: unknown) => void, (round: number) => Promise<unknown>]> = [
      ["GET /me/bootstrap", get(bootstrapRoute, "/me/bootstrap"), (body) => {
        if ((body as { id?: string }).id !== adminUser.id) throw new Error("wrong profile");
      }, touchUser(adminUser.id)],
      ["GET /database/timetable/classes (80 classes, 2000 students)", get(schoolClassesRoute, "/database/timetable/classes"), expectLength("classes", STUDENTS / CLASS_SIZE), touchUser(adminUser.id)],
      ["GET /database/timetable/classes/school/students (2000)", get(schoolStudentsRoute, "/database/timetable/classes/school/students"), expectLength("students", STUDENTS), touchUser(someStudent.id)],
      [
        `GET /graph/node/children (${GRAPH_CHILDREN} children)`,
        get(graphChildrenRoute, `/graph/node/children?neo4j_node_id=${parentKey}&neo4j_db_name=${institute.graph_db_name}`),
        expectLength("children", GRAPH_CHILDREN),
        touchGraph,
      ],
    ];
    const rows: string[] = [];
    for (const [label, send, check, write] of scenarios) {
      const expected = await checkReply(send, check);
      const alone = await drive(send, expected, 1);
      const figures = await drive(send, expected, CLIENTS);
      const missed = await afterWrite(send, write);
      // The writes changed the reply's bytes: check it again for the next endpoint's runs.
      await checkReply(send, check);
      const line =
        `| ${label} | ${alone.median.toFixed(1)} ms | ${alone.p99.toFixed(1)} ms | ${figures.median.toFixed(1)} ms | ` +
        `${figures.p99.toFixed(1)} ms | ${figures.throughput.toFixed(0)}/s | ${figures.nodeCpuPerRequest.toFixed(2)} ms | ` +
        `${Number.isNaN(figures.postgresCpuPerRequest) ? "n/a" : `${figures.postgresCpuPerRequest.toFixed(2)} ms`} | ${missed.toFixed(1)} ms | ` +
        `${figures.p99 <= 30 ? "yes" : "no"} |`;
      rows.push(line);
      console.log(line);
    }
    const report = [
      `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}, ` +
        `PostgreSQL on loopback (postgres.js, pool of ${poolMax}); graph: ${process.env.NEO4J_URI ? "Neo4j" : "embedded tables"}. ` +
        `${CLIENTS} concurrent clients × ${REQUESTS_PER_CLIENT} requests per endpoint after ${WARMUP_PER_CLIENT} warm-up requests each, ` +
        "in-process: the real route handlers called with Request objects (bearer token check with user lookup, the reply cache with its " +
        "version check, row-level security and the reply schema on a recomputation; no HTTP socket). One reply per endpoint is parsed and " +
        "checked (the right number of items); in the timed runs each client reads the body's bytes and checks status, content type and " +
        "length, as a load generator (wrk, k6) does, without parsing the JSON. CPU per request: this process (the clients' share " +
        "included) and the PostgreSQL backends serving the bench database (from /proc). \"After a write\": median of " +
        `${WRITES} requests, each right after a write that changes what the reply read (a user renamed, a graph node written), so the ` +
        "reply is recomputed (one client). " +
        `Load average when done: ${os.loadavg().map((load) => load.toFixed(1)).join(" / ")} (1 / 5 / 15 min; anything else running on the machine inflates the figures).`,
      "",
      `| endpoint | 1 client: median | 1 client: p99 | ${CLIENTS} clients: median | ${CLIENTS} clients: p99 | ${CLIENTS} clients: throughput | ` +
        `CPU per request: Node | CPU per request: PostgreSQL | after a write: median | p99 ≤ 30 ms at ${CLIENTS} |`,
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
      ...rows,
    ].join("\n");
    writeBenchmarkSection("bench:classroom", report, sectionIntro);
  } finally {
    await database.close();
    // BENCH_KEEP_DATABASE=1 keeps the seeded database for EXPLAIN ANALYZE sessions.
    if (process.env.BENCH_KEEP_DATABASE === "1") console.log(`kept database ${name}`);
    else await admin.db.execute(sql.raw(`drop database if exists ${name} with (force)`));
    await admin.close();
  }
}


try {
  await main();
} finally {
  if (temporaryDataDir) fs.rmSync(temporaryDataDir, { recursive: true, force: true });
}
