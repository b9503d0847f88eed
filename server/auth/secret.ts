import "#server-only";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { env } from "../env";

/**
 * A server-side secret: the configured value, or (embedded mode) one generated on first use and kept
 * in DATA_DIR/secrets so that tokens survive restarts. A production deployment must configure it.
 */
export function serverSecret(name: "AUTH_SECRET" | "SYNC_TOKEN_SECRET"): string {
  const config = env();
  const configured = config[name];
  if (configured) return configured;
  if (config.isProductionDeployment) throw new Error(`${name} is required in production`);
  const file = path.join(config.dataDir, "secrets", name.toLowerCase());
  try {
    return fs.readFileSync(file, "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const generated = crypto.randomBytes(48).toString("base64url");
  try {
    fs.writeFileSync(file, generated, { flag: "wx", mode: 0o600 });
    return generated;
  } catch (error) {
    // Another process generated it first: use theirs.
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return fs.readFileSync(file, "utf8").trim();
    throw error;
  }
}
