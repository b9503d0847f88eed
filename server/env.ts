import "#server-only";
import path from "node:path";
import { z } from "zod";
import { graphDatabaseNameRule, graphDatabaseNameShape } from "../lib/rules/graph-database-name";
import { bucketNameShape } from "./object-address";
import { type StorageSettings, logicalBuckets, requiredBuckets, resolveStorageSettings } from "./storage-settings";

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
  /**
   * The SMTP server that e-mails students when results are released and a review request is answered
   * (smtp://user:password@host:587, smtps://… for TLS from the start). Unset: no e-mail is sent.
   */
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, "must be an smtp:// or smtps:// URL")
    .optional(),
  /** The sender of those e-mails. */
  MAIL_FROM: z.string().min(3).default("Markbook <markbook@localhost>"),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  /** Another connection for migrations (a direct one, say); optional: a migration holds one transaction, through any pooler. */
  DATABASE_MIGRATION_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, "must be a postgres:// or postgresql:// URL")
    .optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  /**
   * Named prepared statements on PostgreSQL: "off" behind a transaction pooler that does not keep them
   * (PgBouncer before 1.21, or without max_prepared_statements). Checked at start.
   */
  DATABASE_PREPARED_STATEMENTS: z.enum(["on", "off"]).default("on"),
  /** A query not answered in this time is cancelled and fails (the client's own timeout: it holds through poolers). */
  DATABASE_QUERY_TIMEOUT_SECONDS: z.coerce.number().int().min(1).max(86_400).default(60),
  AUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  /** Lifetime of tokens minted by `markbook token` when --ttl-seconds is not given. */
  AUTH_TOKEN_TTL_SECONDS: z.coerce.number().int().min(60).default(3600),
  /**
   * Reverse proxies in front of Markbook whose X-Forwarded-For entries are trusted to name the client's
   * address (failed sign-ins are counted per address); 0: the socket's peer is the client.
   */
  TRUSTED_PROXY_HOPS: z.coerce.number().int().min(0).max(10).default(0),
  SEED_DEMO: booleanFromString.optional(),
  /** Storage bucket of canvas snapshots (the only bucket /get_canvas_node_file paths may name). */
  SNAPSHOT_BUCKET: z.string().regex(bucketNameShape, "must be a bucket name (a-z, 0-9, . and -)").default("cc.public.snapshots"),
  /** Largest canvas snapshot a write accepts, in bytes (413 above it). */
  MAX_SNAPSHOT_BYTES: z.coerce.number().int().min(1024).default(10 * 1024 * 1024),
  /** Signs tokens of the real-time sync service; separate from AUTH_SECRET, never sent to clients. */
  SYNC_TOKEN_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
  SYNC_TOKEN_TTL_SECONDS: z.coerce.number().int().min(10).max(86400).default(300),
  LOG_LEVEL: z.enum(["debug", "info", "warn", "error"]).default("info"),
  /** Largest scan upload accepted, in bytes (50 MB); larger uploads are refused with 413 while streaming. */
  MAX_SCAN_BYTES: z.coerce.number().int().min(1024).default(52428800),
  /**
   * Largest scanned pile (one PDF of a class set, read into scripts by a background job) accepted, in
   * bytes (1 GiB; a class set at 300 dpi is about 155 MB); larger uploads are refused with 413 while streaming.
   */
  MAX_PILE_BYTES: z.coerce.number().int().min(1024).default(1024 * 1024 * 1024),
  /**
   * Most pages one scanned pile may have (a year group of 240 × 8 pages is 1,920); a PDF with more is
   * refused when its job opens it, before any page is read.
   */
  MAX_PILE_PAGES: z.coerce.number().int().min(1).max(1_000_000).default(2000),
  /**
   * Pages a pile's job reads before it gives the job runner back (queued again behind the others), so a
   * long pile never holds a slot while another school's pile waits.
   */
  PILE_SLICE_PAGES: z.coerce.number().int().min(1).max(100_000).default(20),
  /** JavaScript heap of the scan imaging worker thread, in MB; a file that needs more ends the worker, not the server. */
  IMAGING_WORKER_HEAP_MB: z.coerce.number().int().min(64).max(16_384).default(512),
  /** Storage bucket of exam scans (objects exam-submissions/<batch_id>/<uuid>.pdf). */
  SCAN_BUCKET: z.string().regex(bucketNameShape, "must be a bucket name (a-z, 0-9, . and -)").default("cc.exam.submissions"),
  /** Largest roster import (a CSV, a OneRoster zip, or its CSVs together), in bytes; larger is refused (413). */
  ROSTER_IMPORT_MAX_BYTES: z.coerce.number().int().min(1024).default(5 * 1024 * 1024),
  /** Most rows one roster file may have (people, classes or enrollments); more is refused (413). */
  ROSTER_IMPORT_MAX_ROWS: z.coerce.number().int().min(1).default(20_000),
  // Storage port: the folder DATA_DIR/storage (embedded default), or an S3-compatible service.
  STORAGE_DRIVER: z.enum(["local", "s3"]).default("local"),
  /** The S3 service's URL (MinIO, Ceph, R2, ...); absent: AWS S3 itself. */
  STORAGE_S3_ENDPOINT: z.url().optional(),
  STORAGE_S3_REGION: z.string().min(1).default("us-east-1"),
  /** Both or neither; neither: the AWS SDK's default credential chain. */
  STORAGE_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  STORAGE_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  /** Buckets in the path (host/bucket/key), as MinIO and most S3-compatible servers need. */
  STORAGE_S3_FORCE_PATH_STYLE: booleanFromString.default(false),
  /** Real bucket = this prefix + the logical bucket's name (SCAN_BUCKET, SNAPSHOT_BUCKET, markbook). */
  STORAGE_S3_BUCKET_PREFIX: z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, "must start a bucket name (a-z, 0-9, . and -)").optional(),
  /** Or an explicit list, logical=real,logical=real, covering every logical bucket. */
  STORAGE_S3_BUCKETS: z.string().optional(),
  // Graph port: Neo4j when NEO4J_URI is set, else the embedded graph tables.
  NEO4J_URI: z
    .string()
    .regex(/^(bolt|neo4j)(\+s|\+ssc)?:\/\//, "must be a bolt:// or neo4j:// URL")
    .optional(),
  NEO4J_USER: z.string().min(1).default("neo4j"),
  NEO4J_PASSWORD: z.string().optional(),
  /** Graph database shared by every school: the global calendar. */
  GRAPH_GLOBAL_DB: z
    .string()
    .regex(graphDatabaseNameShape, `must be a graph database name: ${graphDatabaseNameRule}`)
    .default("global"),
  // Background jobs (server/jobs): every app process runs a worker over the job table.
  /** Jobs this process runs at once; 0 = none (a web-only node, another node runs them). */
  JOBS_CONCURRENCY: z.coerce.number().int().min(0).max(64).default(1),
  /** How often an idle worker looks for due jobs, in milliseconds. */
  JOBS_POLL_MS: z.coerce.number().int().min(50).max(600_000).default(1000),
  /** A running job's lease: a job whose process died is run again by another after this long. */
  JOBS_LEASE_SECONDS: z.coerce.number().int().min(1).max(86_400).default(300),
  // Speech service (/v1): see server/speech/config.ts for how these combine.
  /** Folder of local transformers.js model folders. Default: ../shared/models if it exists, else DATA_DIR/models. */
  MODELS_DIR: z.string().min(1).optional(),
  SPEECH_MODEL_TINY: z.string().min(1).default("onnx-community/whisper-tiny"),
  SPEECH_MODEL_BASE: z.string().min(1).default("onnx-community/whisper-base"),
  SPEECH_MODEL_SMALL: z.string().min(1).default("onnx-community/whisper-small"),
  SPEECH_MODEL_MEDIUM: z.string().min(1).default("onnx-community/whisper-medium-ONNX"),
  SPEECH_MODEL_LARGE: z.string().min(1).default("onnx-community/whisper-large-v3-turbo"),
  /** The model used when a request names none, and the one `whisper-1` stands for. */
  SPEECH_DEFAULT_MODEL: z.enum(["tiny", "base", "small", "medium", "large"]).default("base"),
  /** Download models from the Hugging Face hub when they are not in MODELS_DIR. */
  ALLOW_REMOTE_MODELS: booleanFromString.default(true),
  /** Where models are downloaded from: the Hugging Face hub, or a mirror of it (the name huggingface_hub uses). */
  HF_ENDPOINT: z.url({ protocol: /^https?$/ }).default("https://huggingface.co"),
  /** Weights variant: q8 (quantized, default), fp32, fp16, int8, uint8, q4. */
  SPEECH_DTYPE: z.enum(["q8", "fp32", "fp16", "int8", "uint8", "q4"]).default("q8"),
  /** A model not used for this long is unloaded from memory. */
  MODEL_TTL_SECONDS: z.coerce.number().int().min(1).default(900),
  /** Inference worker threads; each runs one job at a time. */
  SPEECH_WORKERS: z.coerce.number().int().min(1).max(64).default(1),
  /** onnxruntime intra-op threads per worker; 0 means the number of cores divided by SPEECH_WORKERS. */
  SPEECH_THREADS: z.coerce.number().int().min(0).max(256).default(0),
  /** onnxruntime's CPU memory arenas: temporaries kept for reuse (encoder ~10% faster, ~40 MB higher peak RSS). */
  SPEECH_MEMORY_ARENA: booleanFromString.default(false),
  /** Jobs that may wait for a worker; beyond that a request gets 429. */
  SPEECH_QUEUE_MAX: z.coerce.number().int().min(0).default(8),
  /** Decoded audio (float32, 64 kB per second) that running and waiting jobs may hold; beyond it, 429. */
  SPEECH_QUEUE_MAX_AUDIO_MB: z.coerce.number().min(1).default(512),
  /** Largest accepted upload, bytes (OpenAI's limit, 25 MiB, by default). */
  MAX_AUDIO_BYTES: z.coerce.number().int().min(1).default(25 * 1024 * 1024),
  /** Longest accepted audio, seconds (2 h is 460 MB of decoded float32). */
  MAX_AUDIO_SECONDS: z.coerce.number().min(1).default(2 * 3600),
  FFMPEG_PATH: z.string().min(1).optional(),
  /** Upper bound of decoded tokens per 30 s window. */
  SPEECH_MAX_NEW_TOKENS: z.coerce.number().int().min(1).max(440).default(224),
  /** Temperatures tried after temperature 0 failed (OpenAI's fallback); "off" turns the fallback off. */
  SPEECH_FALLBACK_TEMPERATURES: z.string().default("0.2,0.4,0.6,0.8,1.0"),
  SPEECH_LOGPROB_THRESHOLD: z.coerce.number().default(-1),
  SPEECH_COMPRESSION_RATIO_THRESHOLD: z.coerce.number().default(2.4),
  SPEECH_NO_SPEECH_THRESHOLD: z.coerce.number().default(0.6),
  /** Per API key: requests per minute, and seconds of audio per minute (0 = unlimited). */
  SPEECH_RATE_LIMIT_RPM: z.coerce.number().int().min(0).default(60),
  SPEECH_RATE_LIMIT_AUDIO_SECONDS: z.coerce.number().int().min(0).default(3600),
  /** Real-time WebSocket limits. */
  SPEECH_WS_MAX_SESSIONS: z.coerce.number().int().min(1).default(8),
  SPEECH_WS_MAX_SESSION_SECONDS: z.coerce.number().int().min(1).default(3600),
});

export type Env = z.infer<typeof envSchema> & {
  /** Absolute data folder: PGlite files, local storage and generated secrets. */
  dataDir: string;
  databaseKind: "pglite" | "postgres";
  /** NODE_ENV=production with an external database: secrets must be given, no demo data by default. */
  isProductionDeployment: boolean;
  seedDemo: boolean;
  appUrl: string;
  storage: StorageSettings;
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
  // Generated secrets live in DATA_DIR, which a production deployment may not keep: they must be given.
  const missingSecrets = (["AUTH_SECRET", "SYNC_TOKEN_SECRET"] as const).filter((name) => !values[name]);
  if (isProductionDeployment && missingSecrets.length > 0) {
    throw new ConfigError(
      `Invalid configuration:\n  ${missingSecrets.join(" and ")} ${missingSecrets.length > 1 ? "are" : "is"} required when ` +
        "NODE_ENV=production and DATABASE_URL is set (each a random string of at least 32 characters, e.g. " +
        "`openssl rand -base64 48`; two different values).",
    );
  }
  if (values.DATABASE_MIGRATION_URL && !values.DATABASE_URL) {
    throw new ConfigError("Invalid configuration:\n  DATABASE_MIGRATION_URL is set but DATABASE_URL is not: it is the direct connection for migrations of that PostgreSQL.");
  }
  const seedDemo = values.SEED_DEMO ?? !isProductionDeployment;
  const storage = resolveStorageSettings(values, logicalBuckets(values), requiredBuckets(values, seedDemo));
  if ("problems" in storage) throw new ConfigError(`Invalid configuration:\n  ${storage.problems.join("\n  ")}`);
  return {
    ...values,
    dataDir: path.resolve(values.DATA_DIR),
    databaseKind: values.DATABASE_URL ? "postgres" : "pglite",
    isProductionDeployment,
    seedDemo,
    appUrl: values.APP_URL ?? `http://localhost:${values.PORT}`,
    storage: storage.settings,
  };
}

let cached: Env | undefined;

export function env(): Env {
  cached ??= parseEnv(process.env);
  return cached;
}
