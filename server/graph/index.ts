import type { Db, Tx } from "../db/client";
import { env } from "../env";
import { createEmbeddedGraphStore } from "./embedded";
import { createNeo4jGraphStore } from "./neo4j";
import type { GraphStore } from "./port";

export type { GraphStore } from "./port";

// One Neo4j driver per process, shared by the Next.js bundles (each loads its own copy of this module).
const slot = globalThis as typeof globalThis & { __markbookNeo4jGraph?: GraphStore };

/**
 * The configured graph store: Neo4j when NEO4J_URI is set, else the embedded tables of `db` (the
 * application database, or a transaction of it so that graph writes commit with it).
 */
export function graphStore(db: Db | Tx): GraphStore {
  const config = env();
  if (!config.NEO4J_URI) return createEmbeddedGraphStore(db);
  slot.__markbookNeo4jGraph ??= createNeo4jGraphStore({
    uri: config.NEO4J_URI,
    user: config.NEO4J_USER,
    password: config.NEO4J_PASSWORD,
  });
  return slot.__markbookNeo4jGraph;
}

/** Closes the Neo4j driver, if one was opened (at shutdown). */
export async function closeGraphStore(): Promise<void> {
  const store = slot.__markbookNeo4jGraph;
  slot.__markbookNeo4jGraph = undefined;
  await store?.close();
}

/** The shared global graph database (the calendar). */
export const globalGraphDatabase = () => env().GRAPH_GLOBAL_DB;
