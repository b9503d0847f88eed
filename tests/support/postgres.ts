/** The PostgreSQL server for the integration tests, when configured (CI sets it). */
export function postgresAdminUrl(): string | undefined {
  return process.env.TEST_DATABASE_URL || undefined;
}
