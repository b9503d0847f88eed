import { inject } from "vitest";

/**
 * The admin URL of the suite's PostgreSQL, inside a test file: TEST_DATABASE_URL when set, else the
 * server the run started itself (tests/support/global-setup.ts). The role may create databases and
 * roles but is not a superuser. Make a database of your own with `withDatabase` and drop it afterwards.
 */
export function postgresAdminUrl(): string | undefined {
  return inject("postgresAdminUrl") || undefined;
}

/** The same server, another database. */
export function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}
