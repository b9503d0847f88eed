/**
 * bench:db — the cost of row-level security as the calling user.
 *
 * For PGlite (always) and PostgreSQL (BENCH_DATABASE_URL or TEST_DATABASE_URL, an admin URL; a fresh
 * database is created and dropped), it reads one template with its 20 questions:
 *   plain  — the two queries without a transaction, with the owner's rights (no RLS)
 *   tx     — the same inside a plain transaction
 *   asUser — the same through asUser (transaction + set_config + SET LOCAL ROLE, RLS applied)
 * and, to separate the wrapper from the policies it switches on, `select 1` plain and through asUser.
 * It prints per-call figures and the overheads, then writes them into docs/benchmarks.md.
 */
import crypto from "node:crypto";
import os from "node:os";
import { asc, eq, sql } from "drizzle-orm";
import { type Database, type Db, type Tx, openDatabase } from "../server/db/client";
import { migrateDatabase } from "../server/db/migrate";
import { asService, asUser } from "../server/db/rls";
import { examQuestions, examTemplates } from "../server/db/schema";
import { createInstitute } from "../server/identity/institutes";
import { createUser } from "../server/identity/users";
import { openScratchPostgres } from "./bench-database";
import { writeBenchmarkSection } from "./benchmarks-doc";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 2000);
const WARMUP = 200;

async function readTemplate(tx: Db | Tx, templateId: string) {
  const [template] = await tx.select().from(examTemplates).where(eq(examTemplates.id, templateId));
  const questions = await tx
    .select()
    .from(examQuestions)
    .where(eq(examQuestions.template_id, templateId))
    .orderBy(asc(examQuestions.order));
  if (!template || questions.length !== 20) throw new Error("benchmark read returned the wrong data");
  return { template, questions };
}

async function prepare(database: Database) {
  await migrateDatabase(database);
  return asService(database.db, async (tx) => {
    const institute = await createInstitute(tx, { name: "Bench school" });
    const teacher = await createUser(tx, {
      email: `bench-${crypto.randomBytes(4).toString("hex")}@example.org`,
      fullName: "Bench Teacher",
      instituteId: institute.id,
      role: "teacher",
    });
    const [template] = await tx
      .insert(examTemplates)
      .values({ institute_id: institute.id, owner_id: teacher.id, title: "Bench paper", status: "ready" })
      .returning();
    await tx.insert(examQuestions).values(
      Array.from({ length: 20 }, (_, index) => ({
        id: crypto.randomUUID(),
        template_id: template!.id,
        label: String(index + 1),
        order: index,
        max_marks: "4",
        mark_scheme: { type: "points" },
      })),
    );
    return { userId: teacher.id, templateId: template!.id };
  });
}

interface Figures {
  mean: number;
  median: number;
  p95: number;
}

async function measure(run: () => Promise<unknown>): Promise<Figures> {
  for (let index = 0; index < WARMUP; index += 1) await run();
  const samples: number[] = [];
  for (let index = 0; index < ITERATIONS; index += 1) {
    const start = performance.now();
    await run();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  return {
    mean: samples.reduce((sum, value) => sum + value, 0) / samples.length,
    median: samples[Math.floor(samples.length / 2)]!,
    p95: samples[Math.floor(samples.length * 0.95)]!,
  };
}

async function benchmark(database: Database) {
  const { userId, templateId } = await prepare(database);
  const { db } = database;
  // Interleave the variants in rounds so that drift of the machine affects them alike.
  const variants = {
    plain: () => readTemplate(db, templateId),
    tx: () => db.transaction((tx) => readTemplate(tx, templateId)),
    asUser: () => asUser(db, userId, (tx) => readTemplate(tx, templateId)),
    selectOne: () => db.execute(sql`select 1`),
    asUserSelectOne: () => asUser(db, userId, (tx) => tx.execute(sql`select 1`)),
  };
  const results = Object.fromEntries(Object.keys(variants).map((name) => [name, [] as Figures[]])) as Record<
    keyof typeof variants,
    Figures[]
  >;
  for (let round = 0; round < 3; round += 1) {
    for (const [name, run] of Object.entries(variants)) results[name as keyof typeof variants].push(await measure(run));
  }
  const best = (figures: Figures[]) => figures.reduce((a, b) => (b.median < a.median ? b : a));
  return Object.fromEntries(Object.entries(results).map(([name, figures]) => [name, best(figures)])) as Record<
    keyof typeof variants,
    Figures
  >;
}

const ms = (value: number) => `${value.toFixed(3)} ms`;

async function main() {
  const rows: string[] = [];
  const runs: { name: string; open: () => Promise<{ database: Database; drop: () => Promise<void> }> }[] = [
    {
      name: "PGlite 0.5 (in memory, same process)",
      open: async () => {
        const database = await openDatabase({ kind: "pglite" });
        return { database, drop: () => database.close() };
      },
    },
  ];
  const postgresUrl = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL;
  if (postgresUrl) runs.push({ name: "PostgreSQL (loopback, postgres.js, 1 connection)", open: () => openScratchPostgres(postgresUrl, 1) });
  else console.warn("BENCH_DATABASE_URL / TEST_DATABASE_URL not set: PostgreSQL is not measured.");

  for (const run of runs) {
    const { database, drop } = await run.open();
    try {
      const figures = await benchmark(database);
      const wrapper = figures.asUserSelectOne.median - figures.selectOne.median;
      const total = figures.asUser.median - figures.plain.median;
      const line = (label: string, value: Figures, base: Figures) =>
        `| ${run.name} | ${label} | ${ms(value.median)} | ${ms(value.mean)} | ${ms(value.p95)} | ${(value.median / base.median).toFixed(2)}× |`;
      rows.push(
        line("template read, plain queries", figures.plain, figures.plain),
        line("template read, plain transaction", figures.tx, figures.plain),
        line("template read, asUser (RLS)", figures.asUser, figures.plain),
        line("`select 1`, plain", figures.selectOne, figures.selectOne),
        line("`select 1`, asUser", figures.asUserSelectOne, figures.selectOne),
        `| ${run.name} | **wrapper alone** (asUser − plain, \`select 1\`) | **${ms(wrapper)}** | | | |`,
        `| ${run.name} | wrapper + policy evaluation (template read) | ${ms(total)} | | | |`,
      );
      console.log(`${run.name}: wrapper ${ms(wrapper)}, wrapper + policies ${ms(total)}`);
    } finally {
      await drop();
    }
  }

  const report = [
    `Measured ${new Date().toISOString().slice(0, 10)} on ${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, Node ${process.version}; ` +
      `${ITERATIONS} reads per variant after ${WARMUP} warm-up reads, best of 3 interleaved rounds. ` +
      "One read = the template row + its 20 questions (two queries).",
    "",
    "| database | variant | median | mean | p95 | vs plain |",
    "| --- | --- | --- | --- | --- | --- |",
    ...rows,
  ].join("\n");
  writeBenchmarkSection("bench:db", report);
}


await main();
