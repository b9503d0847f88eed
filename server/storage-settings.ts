/**
 * Which adapter of the storage port the configuration names, and for S3 how the app's logical buckets
 * map to real ones. server/env.ts reads the variables; this module turns them into settings, or into
 * the problems a start-up error lists.
 */

/** The demo school's template paper (seeded data only). */
export const DEMO_PAPER_BUCKET = "markbook";

/**
 * Every logical bucket the app may read or write, mapped alike on every node whatever SEED_DEMO says:
 * the demo school seeded by one node (or `markbook seed`) is read by all.
 */
export function logicalBuckets(values: { SCAN_BUCKET: string; SNAPSHOT_BUCKET: string }): string[] {
  return [...new Set([values.SCAN_BUCKET, values.SNAPSHOT_BUCKET, DEMO_PAPER_BUCKET])];
}

/**
 * The buckets that must be mapped (by an explicit STORAGE_S3_BUCKETS) and exist at start: all of them
 * where this process seeds the demo school; the demo paper's is optional elsewhere (an install that
 * never seeds it need not create it).
 */
export function requiredBuckets(values: { SCAN_BUCKET: string; SNAPSHOT_BUCKET: string }, seedDemo: boolean): string[] {
  return seedDemo ? logicalBuckets(values) : [...new Set([values.SCAN_BUCKET, values.SNAPSHOT_BUCKET])];
}

export interface S3Settings {
  driver: "s3";
  /** Absent: AWS itself. */
  endpoint?: string;
  region: string;
  /** Absent: the AWS SDK's default credential chain (environment, shared files, instance or task role). */
  credentials?: { accessKeyId: string; secretAccessKey: string };
  forcePathStyle: boolean;
  /** Logical bucket -> real bucket, for every logical bucket (the demo paper's may be absent where it is optional). */
  buckets: Record<string, string>;
  /** The logical buckets the start checks to exist (see requiredBuckets); absent: every mapped one. */
  required?: string[];
}

export type StorageSettings = { driver: "local" } | S3Settings;

export interface StorageVariables {
  STORAGE_DRIVER: "local" | "s3";
  STORAGE_S3_ENDPOINT?: string;
  STORAGE_S3_REGION: string;
  STORAGE_S3_ACCESS_KEY_ID?: string;
  STORAGE_S3_SECRET_ACCESS_KEY?: string;
  STORAGE_S3_FORCE_PATH_STYLE: boolean;
  STORAGE_S3_BUCKET_PREFIX?: string;
  STORAGE_S3_BUCKETS?: string;
}

// S3's rule for a bucket name: 3 to 63 characters, lowercase letters, digits, dots and hyphens, a letter
// or digit at each end, no two dots in a row.
const s3BucketShape = /^(?!.*\.\.)[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

/** The settings, or the problems with the variables (each naming its variable). */
export function resolveStorageSettings(
  values: StorageVariables,
  logical: string[],
  required: string[] = logical,
): { settings: StorageSettings } | { problems: string[] } {
  if (values.STORAGE_DRIVER === "local") return { settings: { driver: "local" } };
  const problems: string[] = [];
  const { STORAGE_S3_ACCESS_KEY_ID: accessKeyId, STORAGE_S3_SECRET_ACCESS_KEY: secretAccessKey } = values;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    problems.push("STORAGE_S3_ACCESS_KEY_ID and STORAGE_S3_SECRET_ACCESS_KEY: give both, or neither for the AWS default credential chain");
  }
  const buckets = mappedBuckets(values, logical, required, problems);
  if (problems.length > 0) return { problems };
  return {
    settings: {
      driver: "s3",
      endpoint: values.STORAGE_S3_ENDPOINT,
      region: values.STORAGE_S3_REGION,
      credentials: accessKeyId && secretAccessKey ? { accessKeyId, secretAccessKey } : undefined,
      forcePathStyle: values.STORAGE_S3_FORCE_PATH_STYLE,
      buckets,
      required,
    },
  };
}

/** Logical -> real bucket: the explicit STORAGE_S3_BUCKETS list, else STORAGE_S3_BUCKET_PREFIX + logical name. */
function mappedBuckets(values: StorageVariables, logical: string[], required: string[], problems: string[]): Record<string, string> {
  const { STORAGE_S3_BUCKETS: list, STORAGE_S3_BUCKET_PREFIX: prefix } = values;
  if (list !== undefined && prefix !== undefined) {
    problems.push("STORAGE_S3_BUCKETS and STORAGE_S3_BUCKET_PREFIX: give one of them, not both");
    return {};
  }
  const buckets: Record<string, string> = {};
  if (list === undefined) {
    for (const name of logical) buckets[name] = `${prefix ?? ""}${name}`;
  } else {
    for (const entry of list.split(",").map((text) => text.trim()).filter(Boolean)) {
      const [name, real, ...rest] = entry.split("=").map((text) => text.trim());
      if (!name || !real || rest.length > 0) problems.push(`STORAGE_S3_BUCKETS: "${entry}" is not logical=real`);
      else if (!logical.includes(name)) problems.push(`STORAGE_S3_BUCKETS: "${name}" is not a bucket the app uses (${logical.join(", ")})`);
      else buckets[name] = real;
    }
    const missing = required.filter((name) => !(name in buckets));
    if (missing.length > 0) problems.push(`STORAGE_S3_BUCKETS: no real bucket for ${missing.join(", ")} (the app uses ${logical.join(", ")})`);
  }
  for (const [name, real] of Object.entries(buckets)) {
    if (!s3BucketShape.test(real)) {
      const source = list === undefined ? "STORAGE_S3_BUCKET_PREFIX" : "STORAGE_S3_BUCKETS";
      problems.push(`${source}: "${real}" (for ${name}) is not an S3 bucket name (3-63 characters: a-z, 0-9, . and -)`);
    }
  }
  return buckets;
}
