import type { Db } from "../db/client";
import { type CallerState, readCallerState } from "../db/reply-cache-state";
import type { CacheRule } from "../operations/define";
import type { CallerGraphDatabases } from "./access";
import { type GraphChildrenInput, authorizeGraphChildren, graphChildrenInput, readGraphChildren } from "./children";
import { graphStore } from "./index";

/**
 * GET /graph/node/children through the reply cache (server/http/reply-cache.ts): the access rule is
 * checked for every caller (from the same state read as the cache's versions); the children themselves
 * depend on the graph only, so any caller allowed to ask shares them. Cached with the embedded graph
 * store only: writes to Neo4j bump no version. Without a state (the user is gone) the operation's
 * handler answers, as for any uncached call.
 */
export async function graphChildrenCache(db: Db, userId: string, input: GraphChildrenInput): Promise<CacheRule> {
  const query = graphChildrenInput.parse(input);
  const state = await readCallerState(db, userId, { graphDatabase: query.neo4j_db_name });
  if (!state) return { sharing: null };
  const access = authorizeGraphChildren(ownGraphDatabases(state), query);
  const sharing =
    graphStore(db).kind === "embedded"
      ? {
          key: JSON.stringify(["graph-children", query.neo4j_db_name, query.neo4j_node_id, query.node_type ?? null, access.calendarOnly]),
          version: state.graph_version ?? "0",
        }
      : null;
  return { sharing, produce: () => readGraphChildren(db, query, access) };
}

function ownGraphDatabases(state: CallerState): CallerGraphDatabases {
  return {
    personal: state.user_db_name,
    institute: state.institutes.map((institute) => institute.graph_db_name),
    curriculum: state.institutes.map((institute) => institute.curriculum_db_name),
  };
}
