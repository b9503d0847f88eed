/**
 * Watches a test run that started its own PostgreSQL: once the run's process is gone, however it ended
 * (Ctrl-C, SIGTERM, SIGKILL, a crash), stops the server and deletes its folder. Exits by itself when
 * the run removed the folder in its own teardown.
 *   node --import tsx tests/support/postgres-watchdog.ts <run pid> <data folder>
 */
import fs from "node:fs";
import { isAlive, removeLeftover } from "./postgres-leftovers";

const [ownerArg, dataDir] = process.argv.slice(2);
const owner = Number(ownerArg);
if (!Number.isInteger(owner) || !dataDir) throw new Error("usage: postgres-watchdog.ts <run pid> <data folder>");

const timer = setInterval(() => {
  if (!fs.existsSync(dataDir)) {
    clearInterval(timer);
    return;
  }
  if (isAlive(owner)) return;
  clearInterval(timer);
  void removeLeftover(dataDir);
}, 250);
