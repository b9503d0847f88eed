import { eq } from "drizzle-orm";
import type { Tx } from "../db/client";
import { institutes, users } from "../db/schema";

/** The shared graph database every school reads (the global calendar): GRAPH_GLOBAL_DB, default "global". */
export { globalGraphDatabase } from "./index";

export interface CallerGraphDatabases {
  /** The caller's personal graph database. */
  personal: string | null;
  /** Graph databases of the caller's institutes. */
  institute: string[];
  /** Curriculum graph databases of the caller's institutes. */
  curriculum: string[];
}

/** The graph databases the caller may reach, read as the caller (RLS shows only their institutes). */
export async function findCallerGraphDatabases(tx: Tx, userId: string): Promise<CallerGraphDatabases> {
  const [user] = await tx.select({ user_db_name: users.user_db_name }).from(users).where(eq(users.id, userId));
  const schools = await tx
    .select({ graph_db_name: institutes.graph_db_name, curriculum_db_name: institutes.curriculum_db_name })
    .from(institutes);
  return {
    personal: user?.user_db_name ?? null,
    institute: schools.map((school) => school.graph_db_name),
    curriculum: schools.map((school) => school.curriculum_db_name),
  };
}

/** True when `dbName` is the caller's personal, institute or curriculum graph database. */
export function isOwnGraphDatabase(databases: CallerGraphDatabases, dbName: string): boolean {
  return dbName === databases.personal || databases.institute.includes(dbName) || databases.curriculum.includes(dbName);
}
