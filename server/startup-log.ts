/**
 * The start-up's progress in the log: each step as it begins (so a slow one is seen to be running), how
 * long it took, and the total since the process began. `npm start` runs every step in one process, so
 * one log per process collects them all.
 */
import { logger } from "./logger";

/** The steps of a start, in order; `build` happens only under `npm start` without a build. */
export const STARTUP_STEPS = ["build", "storage", "database", "migrations", "seed", "app", "listen"] as const;
type StartupStep = (typeof STARTUP_STEPS)[number];

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

class StartupLog {
  private readonly took = new Map<StartupStep, number>();

  /** Logs `doing` now, runs the work, then how long it took (and `done`'s words about the result). */
  async step<T>(step: StartupStep, doing: string, work: () => T | Promise<T>, done?: (result: T) => string | null): Promise<T> {
    logger.info(`start: ${step}: ${doing}…`);
    const began = performance.now();
    const result = await work();
    const ms = performance.now() - began;
    this.took.set(step, ms);
    const words = done?.(result);
    logger.info(`start: ${step}: ${words ? `${words}, ` : ""}done in ${seconds(ms)}`);
    return result;
  }

  /** A step with nothing to do this time, and why. */
  skipped(step: StartupStep, why: string) {
    this.took.set(step, 0);
    logger.info(`start: ${step}: skipped (${why})`);
  }

  /** The total since the process began (loading code included), and each step's share. */
  summary(): string {
    const steps = STARTUP_STEPS.filter((step) => this.took.has(step)).map((step) => `${step} ${seconds(this.took.get(step)!)}`);
    return `started in ${seconds(performance.now())} (${steps.join(", ")}; the rest is loading code)`;
  }
}

const slot = globalThis as typeof globalThis & { __markbookStartupLog?: StartupLog };

/** The process's start-up log (one per process: scripts/start.ts and server.ts share it). */
export function startupLog(): StartupLog {
  slot.__markbookStartupLog ??= new StartupLog();
  return slot.__markbookStartupLog;
}
