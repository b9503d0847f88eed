import fs from "node:fs";

/**
 * CPU time (ms) used so far by these processes, from /proc (Linux); null where /proc cannot be read at
 * all. A process that ended meanwhile (a PostgreSQL backend) counts for nothing.
 */
export function processesCpuMs(pids: number[]): number | null {
  if (!fs.existsSync("/proc/self/stat")) return null;
  let ticks = 0;
  for (const pid of pids) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    } catch {
      continue;
    }
    // Fields after the command name: utime and stime are the 14th and 15th of the whole line.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    ticks += Number(fields[11]) + Number(fields[12]);
  }
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}
