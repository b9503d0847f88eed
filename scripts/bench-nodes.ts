/**
 * `npm run bench:nodes`: what one Markbook app node serves over HTTP, for the capacity model of
 * docs/deploy.md. A production node (`server.ts` on the build in .next, built first when missing) on
 * PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL, an admin connection: the script makes and drops
 * its own database), with the demo school. Then two nodes on the same database, the clients spread over
 * both, to show what sharing the database costs. Measures, per scenario, from 32 keep-alive clients:
 *   - a cached read: a class's roster (GET /database/timetable/classes/{id}/students), as the marking
 *     screen and external tools read lists;
 *   - a mark save: PUT /api/exam/marks/{id}, what the marking screen sends on Enter;
 * throughput, median and p99 latency, and CPU per request of the node processes and of the PostgreSQL
 * backends (from /proc), so that requests per core-second can be read off independently of the load
 * generator, which shares this machine's cores. Memory: each node's resident set after start and its
 * peak (VmHWM).
 *   BENCH_SECONDS=5   seconds per scenario      BENCH_CLIENTS=32   concurrent clients
 */
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import postgres from "postgres";
import { pdfBytes, multipartBody, sampleCanvas } from "../tests/support/exam-fixtures";
import { type MarkbookNode, ensureProductionBuild, runMarkbookCli, startMarkbookNode } from "../tests/support/markbook-node";
import { writeBenchmarkSection } from "./benchmarks-doc";
import { processesCpuMs } from "./process-cpu";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 32);
const PORTS = [3711, 3712] as const;
const TEACHER = "teacher@northfield.example";

interface Figures {
  requests: number;
  throughput: number;
  median: number;
  p99: number;
  nodeCpuPerRequest: number;
  postgresCpuPerRequest: number;
}


/** Resident set now and at its peak (MB) of a process, from /proc. */
function memoryMb(pid: number): { rss: number; peak: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(status)?.[1] ?? Number.NaN);
  return { rss: kb("VmRSS") / 1024, peak: kb("VmHWM") / 1024 };
}

/** `CLIENTS` loops, each sending one request after another for SECONDS; every reply is read and checked. */
async function drive(send: (client: number, index: number) => Promise<Response>, nodePids: number[], postgresPids: () => Promise<number[]>): Promise<Figures> {
  const once = async (client: number, index: number) => {
    const response = await send(client, index);
    const body = await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`unexpected status ${response.status}: ${Buffer.from(body).toString()}`);
  };
  await Promise.all(Array.from({ length: CLIENTS }, async (_, client) => {
    for (let index = 0; index < 10; index++) await once(client, index);
  }));
  const backends = await postgresPids();
  const nodeBefore = processesCpuMs(nodePids);
  const postgresBefore = processesCpuMs(backends);
  const samples: number[] = [];
  const started = performance.now();
  const stopAt = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let index = 10; performance.now() < stopAt; index++) {
        const start = performance.now();
        await once(client, index);
        samples.push(performance.now() - start);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const nodeCpu = (processesCpuMs(nodePids) ?? Number.NaN) - (nodeBefore ?? Number.NaN);
  const postgresCpu = (processesCpuMs(backends) ?? Number.NaN) - (postgresBefore ?? Number.NaN);
  samples.sort((a, b) => a - b);
  return {
    requests: samples.length,
    throughput: samples.length / elapsed,
    median: samples[Math.floor(samples.length / 2)]!,
    p99: samples[Math.min(samples.length - 1, Math.floor(samples.length * 0.99))]!,
    nodeCpuPerRequest: nodeCpu / samples.length,
    postgresCpuPerRequest: postgresCpu / samples.length,
  };
}

async function main() {
  const adminUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (!adminUrl) {
    console.error("bench:nodes needs BENCH_DATABASE_URL or TEST_DATABASE_URL (an admin connection to PostgreSQL).");
    process.exit(2);
  }
  ensureProductionBuild();
  const name = `markbook_bench_nodes_${process.pid}`;
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const env: Record<string, string> = {
    DATABASE_URL: url.toString(),
    AUTH_SECRET: crypto.randomBytes(32).toString("hex"),
    SYNC_TOKEN_SECRET: crypto.randomBytes(32).toString("hex"),
    ALLOW_REMOTE_MODELS: "false",
    LOG_LEVEL: "warn",
  };
  const nodes: MarkbookNode[] = [];
  const database = postgres(url.toString(), { max: 1, onnotice: () => {} });
  const postgresPids = async () =>
    (await database`select pid from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`).map((row) => row.pid as number);
  try {
    nodes.push(await startMarkbookNode({ name: "node-1", port: PORTS[0], env: { ...env, SEED_DEMO: "true" } }));
    const afterStart = memoryMb(nodes[0]!.pid);
    const token = await runMarkbookCli(env, "token", "--email", TEACHER);
    const headers = { authorization: `Bearer ${token}` };
    const call = (node: MarkbookNode, method: string, route: string, body?: unknown) =>
      fetch(`${node.url}${route}`, {
        method,
        headers: body === undefined ? headers : { ...headers, "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    const json = async <Reply>(response: Promise<Response>): Promise<Reply> => {
      const reply = await response;
      if (!reply.ok) throw new Error(`${reply.status}: ${await reply.text()}`);
      return (await reply.json()) as Reply;
    };

    // A batch of the teacher's first class with a scan per student, and the leaf questions to mark.
    const first = nodes[0]!;
    const classId = (await json<{ classes: { id: string }[] }>(call(first, "GET", "/database/timetable/classes/teaching"))).classes[0]!.id;
    const template = await json<{ id: string }>(call(first, "POST", "/api/exam/templates", { title: "Capacity", page_count: 3 }));
    const canvas = sampleCanvas();
    await json(call(first, "PUT", `/api/exam/templates/${template.id}`, canvas));
    const batch = await json<{ id: string; submission_count: number }>(call(first, "POST", "/api/exam/batches", { template_id: template.id, class_id: classId }));
    for (let student = 0; student < batch.submission_count; student++) {
      const form = multipartBody([
        { name: "matching_method", value: "ordered" },
        { name: "file", filename: "scan.pdf", bytes: pdfBytes(4096) },
      ]);
      await json(fetch(`${first.url}/api/exam/batches/${batch.id}/scans`, { method: "POST", headers: { ...headers, "content-type": form.contentType }, body: form.body }));
    }
    const queue = await json<{ submissions: { id: string; status: string }[] }>(call(first, "GET", `/api/exam/batches/${batch.id}/queue`));
    const submissions = queue.submissions.filter((submission) => submission.status !== "absent").map((submission) => submission.id);
    const questions = [canvas.ids.q1a, canvas.ids.q1b, canvas.ids.q2];
    const pairs = submissions.flatMap((submission) => questions.map((question) => ({ submission, question, id: crypto.randomUUID() })));
    const roster = `/database/timetable/classes/${classId}/students`;

    const scenarios = async (targets: MarkbookNode[]) => {
      const pick = (client: number) => targets[client % targets.length]!;
      const pids = targets.map((node) => node.pid);
      const read = await drive((client) => call(pick(client), "GET", roster), pids, postgresPids);
      const save = await drive(
        (client, index) => {
          const pair = pairs[(client * 7919 + index) % pairs.length]!;
          return call(pick(client), "PUT", `/api/exam/marks/${pair.id}`, {
            submission_id: pair.submission,
            question_id: pair.question,
            awarded_marks: index % 3,
            comment: null,
            confirmed: true,
          });
        },
        pids,
        postgresPids,
      );
      return { read, save };
    };

    const one = await scenarios([first]);
    nodes.push(await startMarkbookNode({ name: "node-2", port: PORTS[1], env }));
    const two = await scenarios(nodes);
    const memory = nodes.map((node) => memoryMb(node.pid));

    const row = (what: string, nodesUsed: string, figures: Figures) =>
      `| ${what} | ${nodesUsed} | ${figures.throughput.toFixed(0)}/s | ${figures.median.toFixed(1)} ms | ${figures.p99.toFixed(1)} ms | ` +
      `${figures.nodeCpuPerRequest.toFixed(2)} ms | ${figures.postgresCpuPerRequest.toFixed(2)} ms | ${(1000 / figures.nodeCpuPerRequest).toFixed(0)}/s |`;
    const body = [
      `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}, ` +
        `PostgreSQL over loopback; production build, demo school; ${CLIENTS} keep-alive clients for ${SECONDS} s per row, in this process ` +
        `(the load generator shares the cores with the nodes and PostgreSQL: throughput is what this machine does with all three on it; ` +
        `CPU per request is each part's own). Marks: ${pairs.length} (script, question) pairs saved over and over, confirmed, as on Enter. ` +
        `Load average at the end ${os.loadavg().map((value) => value.toFixed(1)).join(" / ")}.`,
      "",
      "| request | nodes | throughput | median | p99 | node CPU per request | PostgreSQL CPU per request | requests per node core-second |",
      "| --- | --- | --- | --- | --- | --- | --- | --- |",
      row("GET a class roster (cached)", "1", one.read),
      row("GET a class roster (cached)", "2, clients spread", two.read),
      row("PUT a mark", "1", one.save),
      row("PUT a mark", "2, clients spread", two.save),
      "",
      `Memory of a node: ${afterStart.rss.toFixed(0)} MB resident after start (demo seeded); after the runs ` +
        memory.map((figures, index) => `node ${index + 1} ${figures.rss.toFixed(0)} MB (peak ${figures.peak.toFixed(0)} MB)`).join(", ") +
        ". No speech model loaded (bench:speech measures the engine).",
    ].join("\n");
    console.log(body);
    writeBenchmarkSection(
      "bench:nodes",
      body,
      "## bench:nodes — one app node over HTTP, then two on one PostgreSQL\n\n`npm run bench:nodes` (needs `BENCH_DATABASE_URL` or `TEST_DATABASE_URL`; the figures feed the capacity model in docs/deploy.md).",
    );
  } finally {
    await Promise.all(nodes.map((node) => node.stop()));
    await database.end();
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
