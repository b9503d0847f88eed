/* A small leveled logger: one line per event on stderr, stacks only here, never in responses. */
import { errorForLog } from "./postgres-errors";
import { env } from "./env";

const levels = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof levels;

function threshold(): number {
  try {
    return levels[env().LOG_LEVEL];
  } catch {
    return levels.info; // logging must work even while the configuration is invalid
  }
}

function write(level: Level, message: string, detail?: unknown) {
  if (levels[level] < threshold()) return;
  const time = new Date().toISOString();
  const suffix =
    detail === undefined ? "" : detail instanceof Error ? `\n${errorForLog(detail)}` : ` ${JSON.stringify(detail)}`;
  process.stderr.write(`${time} ${level.toUpperCase().padEnd(5)} ${message}${suffix}\n`);
}

export const logger = {
  debug: (message: string, detail?: unknown) => write("debug", message, detail),
  info: (message: string, detail?: unknown) => write("info", message, detail),
  warn: (message: string, detail?: unknown) => write("warn", message, detail),
  error: (message: string, detail?: unknown) => write("error", message, detail),
};
