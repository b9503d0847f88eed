import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import type { TestProject } from "vitest/node";
import { openDatabase } from "../../server/db/client";
import { migrateDatabase } from "../../server/db/migrate";
import { postgresAdminUrl } from "./postgres";

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplatePath: string;
    postgresTemplate: string;
  }
}

/** Migrates each database once; every test file then starts from a copy of the migrated template. */
export default async function setup(project: TestProject) {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), "markbook-tests-"));
  const pglite = await openDatabase({ kind: "pglite" });
  await migrateDatabase(pglite);
  const dump = await ((pglite.db as unknown as { $client: { dumpDataDir(c: "none"): Promise<Blob> } }).$client.dumpDataDir("none"));
  await pglite.close();
  const templatePath = path.join(directory, "pglite-template.tar");
  fs.writeFileSync(templatePath, Buffer.from(await dump.arrayBuffer()));
  project.provide("pgliteTemplatePath", templatePath);

  const adminUrl = postgresAdminUrl();
  // A template of this run's own: runs started side by side never drop each other's template.
  const postgresTemplate = `markbook_test_template_${process.pid}`;
  project.provide("postgresTemplate", postgresTemplate);
  if (adminUrl) {
    const admin = await openDatabase({ kind: "postgres", url: adminUrl, poolMax: 1 });
    await admin.db.execute(sql.raw(`drop database if exists ${postgresTemplate} with (force)`));
    await admin.db.execute(sql.raw(`create database ${postgresTemplate}`));
    await admin.close();
    const template = await openDatabase({ kind: "postgres", url: withDatabase(adminUrl, postgresTemplate), poolMax: 1 });
    await migrateDatabase(template);
    await template.close();
  } else {
    console.warn("\nTEST_DATABASE_URL is not set: the PostgreSQL runs of the integration tests are skipped.\n");
  }

  return async () => {
    fs.rmSync(directory, { recursive: true, force: true });
    if (adminUrl) {
      const admin = await openDatabase({ kind: "postgres", url: adminUrl, poolMax: 1 });
      await admin.db.execute(sql.raw(`drop database if exists ${postgresTemplate} with (force)`));
      await admin.close();
    }
  };
}

export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
