import path from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, parseEnv } from "../server/env";

const SECRET = "a-secret-of-at-least-thirty-two-characters!";
const SYNC_SECRET = "another-secret-of-at-least-thirty-two-chars";

function configError(source: Record<string, string>): ConfigError {
  try {
    parseEnv(source);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("expected a ConfigError");
}

describe("parseEnv", () => {
  it("needs nothing: embedded database in ./data on port 3000, with the demo school", () => {
    const config = parseEnv({});
    expect(config).toMatchObject({
      PORT: 3000,
      HOST: "0.0.0.0",
      databaseKind: "pglite",
      dataDir: path.resolve("data"),
      seedDemo: true,
      isProductionDeployment: false,
      appUrl: "http://localhost:3000",
    });
  });

  it("treats empty variables as unset", () => {
    expect(parseEnv({ PORT: "", DATABASE_URL: "", SEED_DEMO: "" })).toMatchObject({ PORT: 3000, databaseKind: "pglite", seedDemo: true });
  });

  it("runs one background job at a time by default; JOBS_CONCURRENCY=0 makes a web-only node; names a bad job setting", () => {
    expect(parseEnv({})).toMatchObject({ JOBS_CONCURRENCY: 1, JOBS_POLL_MS: 1000, JOBS_LEASE_SECONDS: 300 });
    expect(parseEnv({ JOBS_CONCURRENCY: "0", JOBS_POLL_MS: "200", JOBS_LEASE_SECONDS: "2" })).toMatchObject({
      JOBS_CONCURRENCY: 0,
      JOBS_POLL_MS: 200,
      JOBS_LEASE_SECONDS: 2,
    });
    expect(configError({ JOBS_CONCURRENCY: "-1" }).message).toMatch(/JOBS_CONCURRENCY="-1"/);
    expect(configError({ JOBS_LEASE_SECONDS: "0" }).message).toMatch(/JOBS_LEASE_SECONDS="0"/);
  });

  it("names PORT when it is not a port number", () => {
    for (const port of ["http", "0", "70000", "30.5"]) {
      expect(configError({ PORT: port }).message).toMatch(/PORT="/);
    }
    expect(parseEnv({ PORT: "8080" }).PORT).toBe(8080);
  });

  it("names DATABASE_URL when it is not a PostgreSQL URL, and uses PostgreSQL when it is", () => {
    expect(configError({ DATABASE_URL: "mysql://localhost/markbook" }).message).toMatch(/DATABASE_URL/);
    expect(parseEnv({ DATABASE_URL: "postgres://u:p@db:5432/markbook" }).databaseKind).toBe("postgres");
  });

  it("refuses production with an external database and no AUTH_SECRET or SYNC_TOKEN_SECRET, naming them", () => {
    const production = { NODE_ENV: "production", DATABASE_URL: "postgres://u:p@db:5432/markbook" };
    expect(configError(production).message).toMatch(/AUTH_SECRET and SYNC_TOKEN_SECRET are required/);
    expect(configError({ ...production, AUTH_SECRET: "short", SYNC_TOKEN_SECRET: SYNC_SECRET }).message).toMatch(/AUTH_SECRET/);
    expect(configError({ ...production, AUTH_SECRET: SECRET }).message).toMatch(/SYNC_TOKEN_SECRET is required/);
    const config = parseEnv({ ...production, AUTH_SECRET: SECRET, SYNC_TOKEN_SECRET: SYNC_SECRET });
    expect(config.isProductionDeployment).toBe(true);
    // A production installation never gets the published demo accounts unless asked for.
    expect(config.seedDemo).toBe(false);
  });

  it("keeps the embedded production mode (npm start) free of required secrets", () => {
    expect(parseEnv({ NODE_ENV: "production" })).toMatchObject({ isProductionDeployment: false, seedDemo: true });
  });

  it("reads SEED_DEMO as a boolean and names it when it is not one", () => {
    for (const value of ["true", "1", "yes", "on"]) expect(parseEnv({ SEED_DEMO: value }).seedDemo).toBe(true);
    for (const value of ["false", "0", "no", "off"]) expect(parseEnv({ SEED_DEMO: value }).seedDemo).toBe(false);
    const production = { NODE_ENV: "production", DATABASE_URL: "postgres://u:p@db/m", AUTH_SECRET: SECRET, SYNC_TOKEN_SECRET: SYNC_SECRET };
    expect(parseEnv({ ...production, SEED_DEMO: "true" }).seedDemo).toBe(true);
    expect(configError({ SEED_DEMO: "maybe" }).message).toMatch(/SEED_DEMO="maybe"/);
  });
});
