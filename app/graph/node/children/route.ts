import { graphChildrenOutput, listGraphChildren } from "@/server/classroom/graph-children";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** GET /graph/node/children?neo4j_node_id=…&neo4j_db_name=…[&node_type=…][&section_id=…] */
export const GET = restRoute(async ({ db, user, url }) => {
  // An empty query value counts as absent, as most web frameworks read it; a missing required one is
  // the domain schema's 400 (hence the `!`: the type says string, the schema checks it).
  const query = (name: string) => url.searchParams.get(name) || undefined;
  const result = await listGraphChildren(db, user.id, {
    neo4j_node_id: query("neo4j_node_id")!,
    neo4j_db_name: query("neo4j_db_name")!,
    node_type: query("node_type"),
    section_id: query("section_id"),
  });
  // safeParse: a reply that breaks its own schema is our bug (500), not the client's (400).
  const reply = graphChildrenOutput.safeParse(result);
  if (!reply.success) throw new Error(`GET /graph/node/children reply does not match its schema: ${reply.error.message}`);
  return reply.data;
});
