import { type LeftoverSweep, createLocalStorage, localStorageRoot, removeTemporaryLeftovers } from "./local";
import { type ObjectStorage, installedObjectStorage, useObjectStorage } from "./object-storage";

/**
 * The composition point of the storage port: the one module that knows which adapter the configuration
 * names (today always the local folder, DATA_DIR/storage). The server installs it at start; a process
 * that has installed none (a test, a script) gets it on first use.
 */
export function configuredObjectStorage(): ObjectStorage {
  return createLocalStorage(localStorageRoot());
}

/** The process's store: the installed adapter, else the configured one (installed now). */
export function objectStorage(): ObjectStorage {
  return installedObjectStorage() ?? useObjectStorage(configuredObjectStorage());
}

/**
 * Removes the temporary files that writes interrupted by a crash left in the configured adapter's
 * folder (see removeTemporaryLeftovers for `olderThanMs`).
 */
export function removeStorageLeftovers(options: { olderThanMs: number }): Promise<LeftoverSweep> {
  return removeTemporaryLeftovers(localStorageRoot(), options);
}
