import path from "node:path";
import { z } from "zod";

/**
 * The only reader of process.env. Every variable has a default that makes the embedded mode
 * (PGlite + local files in DATA_DIR) work with no configuration at all.
 */

const booleanFromString = z
  .enum(["true", "false", "1", "0", "yes", "no", "on", "off"])
  .transform((value) => ["true", "1", "yes", "on"].includes(value));

const envSchema = z.object({
  NODE_ENV: z.enum(["development", "production", "test"]).default("development"),
  PORT: z.coerce.number().int().min(1).max(65535).default(3000),
  HOST: z.string().min(1).default("0.0.0.0"),
  /** Public origin of the app, used for sign-in redirects. Defaults to http://localhost:PORT. */
  APP_URL: z.url().optional(),
  DATA_DIR: z.string().min(1).default("./data"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /** Lifetime of tokens minted by `markbook token` when --ttl-seconds is not given. */
  AUTH_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).default(3600),
  SEED_DEMO: booleanFromString.optional(),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
});

export type Env = z.infer<typeof envSchema> & {
  /** Absolute data folder: PGlite files, local storage and generated secrets. */
  dataDir: string;
  databaseKind: "pglite" | "postgres";
  /** NODE_ENV=production with an external database: secrets must be given, no demo data by default. */
  isProductionDeployment: boolean;
  seedDemo: boolean;
  appUrl: string;
};

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

export function parseEnv(source: Record<string, string | undefined>): Env {
  // An empty variable means "not set", as in most deployment tools.
  const present = Object.fromEntries(Object.entries(source).filter(([, value]) => value !== ""));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const name = issue.path.join(".");
      return `${name}=${JSON.stringify(source[name] ?? "")}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration:\n  ${problems.join("\n  ")}`);
  }
  const values = parsed.data;
  const isProductionDeployment = values.NODE_ENV === "production" && values.DATABASE_URL !== undefined;
  if (isProductionDeployment && !values.AUTH_SECRET) {
    throw new ConfigError(
      "Invalid configuration:\n  AUTH_SECRET is required when NODE_ENV=production and DATABASE_URL is set " +
        "(a random string of at least 32 characters, e.g. `openssl rand -base64 48`).",
    );
  }
  return {
    ...values,
    dataDir: path.resolve(values.DATA_DIR),
    databaseKind: values.DATABASE_URL ? "postgres" : "pglite",
    isProductionDeployment,
    seedDemo: values.SEED_DEMO ?? !isProductionDeployment,
    appUrl: values.APP_URL ?? `http://localhost:${values.PORT}`,
  };
}

let cached: Env | undefined;

export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}
