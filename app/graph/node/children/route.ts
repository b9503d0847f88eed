import { graphChildrenReply } from "@/server/classroom/reply-cache";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** GET /graph/node/children?neo4j_node_id=…&neo4j_db_name=…[&node_type=…][&section_id=…] (ETag, 304) */
export const GET = restRoute(({ db, user, url, request }) => {
  // An empty query value counts as absent, as most web frameworks read it; a missing required one is
  // the domain schema's 400 (hence the `!`: the type says string, the schema checks it).
  const query = (name: string) => url.searchParams.get(name) || undefined;
  return graphChildrenReply(request, db, user.id, {
    neo4j_node_id: query("neo4j_node_id")!,
    neo4j_db_name: query("neo4j_db_name")!,
    node_type: query("node_type"),
    section_id: query("section_id"),
  });
});
