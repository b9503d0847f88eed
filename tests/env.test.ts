import path from "node:path";
import fc from "fast-check";
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

  it("takes DATABASE_MIGRATION_URL only beside DATABASE_URL, and only as a PostgreSQL URL", () => {
    const pooled = { DATABASE_URL: "postgres://u:p@pooler:6432/markbook", DATABASE_MIGRATION_URL: "postgres://u:p@db:5432/markbook" };
    expect(parseEnv(pooled).DATABASE_MIGRATION_URL).toBe("postgres://u:p@db:5432/markbook");
    expect(configError({ ...pooled, DATABASE_MIGRATION_URL: "db:5432" }).message).toMatch(/DATABASE_MIGRATION_URL/);
    expect(configError({ DATABASE_MIGRATION_URL: "postgres://u:p@db:5432/markbook" }).message).toMatch(/DATABASE_MIGRATION_URL is set but DATABASE_URL is not/);
  });

  it("prepares statements and gives queries 60 s by default; names DATABASE_PREPARED_STATEMENTS or DATABASE_QUERY_TIMEOUT_SECONDS when not one of theirs", () => {
    expect(parseEnv({})).toMatchObject({ DATABASE_PREPARED_STATEMENTS: "on", DATABASE_QUERY_TIMEOUT_SECONDS: 60 });
    expect(parseEnv({ DATABASE_PREPARED_STATEMENTS: "off", DATABASE_QUERY_TIMEOUT_SECONDS: "5" })).toMatchObject({
      DATABASE_PREPARED_STATEMENTS: "off",
      DATABASE_QUERY_TIMEOUT_SECONDS: 5,
    });
    fc.assert(
      fc.property(fc.string({ minLength: 1 }).filter((value) => value !== "on" && value !== "off"), (value) => {
        expect(configError({ DATABASE_PREPARED_STATEMENTS: value }).message).toContain("DATABASE_PREPARED_STATEMENTS=");
      }),
    );
    fc.assert(
      fc.property(fc.oneof(fc.integer({ max: 0 }), fc.integer({ min: 86_401 }), fc.constantFrom("soon", "1.5", "-")), (value) => {
        expect(configError({ DATABASE_QUERY_TIMEOUT_SECONDS: String(value) }).message).toContain("DATABASE_QUERY_TIMEOUT_SECONDS=");
      }),
    );
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

describe("parseEnv: the storage settings", () => {
  const s3 = { STORAGE_DRIVER: "s3", STORAGE_S3_ENDPOINT: "http://127.0.0.1:9000", SEED_DEMO: "false" };

  it("uses the local folder by default, and maps every logical bucket to itself on S3 with no prefix or list", () => {
    expect(parseEnv({}).storage).toEqual({ driver: "local" });
    expect(parseEnv({ STORAGE_DRIVER: "s3" }).storage).toEqual({
      driver: "s3",
      endpoint: undefined,
      region: "us-east-1",
      credentials: undefined,
      forcePathStyle: false,
      buckets: { "cc.exam.submissions": "cc.exam.submissions", "cc.public.snapshots": "cc.public.snapshots", markbook: "markbook" },
      required: ["cc.exam.submissions", "cc.public.snapshots", "markbook"],
    });
    // Without the demo, its bucket is mapped alike but need not exist.
    expect(parseEnv({ STORAGE_DRIVER: "s3", SEED_DEMO: "false" }).storage).toMatchObject({ required: ["cc.exam.submissions", "cc.public.snapshots"] });
  });

  it("maps the logical buckets by STORAGE_S3_BUCKET_PREFIX, the demo paper's too whether or not the demo is seeded", () => {
    const config = parseEnv({ ...s3, STORAGE_S3_BUCKET_PREFIX: "school-", STORAGE_S3_FORCE_PATH_STYLE: "true", SCAN_BUCKET: "scans" });
    expect(config.storage).toMatchObject({
      endpoint: "http://127.0.0.1:9000",
      forcePathStyle: true,
      buckets: { scans: "school-scans", "cc.public.snapshots": "school-cc.public.snapshots", markbook: "school-markbook" },
    });
    expect(parseEnv({ ...s3, SEED_DEMO: "true", STORAGE_S3_BUCKET_PREFIX: "x-" }).storage).toMatchObject({ buckets: { markbook: "x-markbook" } });
  });

  it("maps them by an explicit STORAGE_S3_BUCKETS list, which must cover every one (the demo paper's where the demo is seeded)", () => {
    const list = " cc.exam.submissions = district-scans , cc.public.snapshots=district-canvases ";
    expect(parseEnv({ ...s3, STORAGE_S3_BUCKETS: list }).storage).toMatchObject({
      buckets: { "cc.exam.submissions": "district-scans", "cc.public.snapshots": "district-canvases" },
    });
    expect(configError({ ...s3, STORAGE_S3_BUCKETS: "cc.exam.submissions=district-scans" }).message).toMatch(
      /STORAGE_S3_BUCKETS: no real bucket for cc\.public\.snapshots \(the app uses cc\.exam\.submissions, cc\.public\.snapshots, markbook\)/,
    );
    expect(configError({ ...s3, SEED_DEMO: "true", STORAGE_S3_BUCKETS: list }).message).toMatch(/STORAGE_S3_BUCKETS: no real bucket for markbook/);
    expect(parseEnv({ ...s3, SEED_DEMO: "true", STORAGE_S3_BUCKETS: `${list},markbook=district-demo` }).storage).toMatchObject({
      buckets: { markbook: "district-demo" },
    });
  });

  it("names the variable of each problem: an entry not logical=real, an unknown or invalid bucket, both ways at once, half a key pair", () => {
    const both = `cc.exam.submissions=a-scans,cc.public.snapshots=a-canvases`;
    expect(configError({ ...s3, STORAGE_S3_BUCKETS: `${both},scans` }).message).toMatch(/STORAGE_S3_BUCKETS: "scans" is not logical=real/);
    expect(configError({ ...s3, STORAGE_S3_BUCKETS: `${both},other=b` }).message).toMatch(/STORAGE_S3_BUCKETS: "other" is not a bucket the app uses/);
    expect(configError({ ...s3, STORAGE_S3_BUCKETS: "cc.exam.submissions=Scans!,cc.public.snapshots=ab" }).message).toMatch(
      /STORAGE_S3_BUCKETS: "Scans!" \(for cc\.exam\.submissions\) is not an S3 bucket name[\s\S]*"ab" \(for cc\.public\.snapshots\) is not an S3 bucket name/,
    );
    expect(configError({ ...s3, STORAGE_S3_BUCKET_PREFIX: "a".repeat(50) }).message).toMatch(/STORAGE_S3_BUCKET_PREFIX: "a{50}cc\.exam\.submissions" .* is not an S3 bucket name/);
    expect(configError({ ...s3, STORAGE_S3_BUCKET_PREFIX: "UP" }).message).toMatch(/STORAGE_S3_BUCKET_PREFIX="UP"/);
    expect(configError({ ...s3, STORAGE_S3_BUCKETS: both, STORAGE_S3_BUCKET_PREFIX: "x-" }).message).toMatch(/give one of them, not both/);
    expect(configError({ ...s3, STORAGE_S3_ACCESS_KEY_ID: "key" }).message).toMatch(/STORAGE_S3_ACCESS_KEY_ID and STORAGE_S3_SECRET_ACCESS_KEY: give both/);
    expect(configError({ ...s3, STORAGE_S3_ENDPOINT: "not a url" }).message).toMatch(/STORAGE_S3_ENDPOINT="not a url"/);
    expect(configError({ STORAGE_DRIVER: "ftp" }).message).toMatch(/STORAGE_DRIVER="ftp"/);
    expect(parseEnv({ ...s3, STORAGE_S3_ACCESS_KEY_ID: "key", STORAGE_S3_SECRET_ACCESS_KEY: "secret" }).storage).toMatchObject({
      credentials: { accessKeyId: "key", secretAccessKey: "secret" },
    });
  });
});
