import { type SQL, sql } from "drizzle-orm";
import { type Db, type Tx, rowsOf } from "../db/client";
import {
  type ChildrenFilter,
  type GraphChild,
  type GraphNode,
  type GraphNodeInput,
  type GraphRelationshipInput,
  type GraphStore,
  type GraphWriter,
  type PaperStructure,
  GraphNodeOwnedError,
  GraphNodeTypeClashError,
  OWNER_PROPERTY,
  assertLabel,
  assertNodeKey,
  assertRelationshipType,
  ownedProperties,
  paperLabels,
  paperLinks,
} from "./port";

/**
 * The embedded graph adapter: the `graph_nodes` and `graph_edges` tables of the application database.
 * It is a separate store reached only through this port (the row-level-security role has no grant on
 * these tables), so it runs with the connection's own rights; the callers decide who may read what.
 * Batches travel as one JSON parameter, so a write costs one statement whatever its size.
 */
export function createEmbeddedGraphStore(db: Db | Tx): GraphStore {
  return {
    kind: "embedded",
    write: (database, work) => db.transaction((tx) => work(embeddedWriter(tx, database))),
    getNode: (database, id) => getNode(db, database, id),
    listChildren: (database, id, filter) => listChildren(db, database, id, filter),
    // The database belongs to the application, which closes it.
    close: async () => {},
  };
}

type Executor = Pick<Db, "execute">;

const json = (value: unknown) => sql`${JSON.stringify(value)}::jsonb`;

/** Later entries for the same key win, their properties merged over the earlier ones. */
function mergeDuplicates<T extends { properties?: Record<string, unknown> }>(items: T[], keyOf: (item: T) => string): T[] {
  const byKey = new Map<string, T>();
  for (const item of items) {
    const key = keyOf(item);
    const previous = byKey.get(key);
    byKey.set(key, previous ? { ...item, properties: { ...previous.properties, ...item.properties } } : item);
  }
  return [...byKey.values()];
}

function embeddedWriter(tx: Executor, database: string): GraphWriter {
  return {
    async upsertNodes(nodes: GraphNodeInput[]) {
      if (nodes.length === 0) return;
      const unique = mergeDuplicates(
        nodes.map((node) => ({ label: node.label, key: node.key, properties: ownedProperties(node) })),
        (node) => assertNodeKey(node.key),
      );
      // Rows in key order: concurrent writers then lock shared nodes in the same order (no deadlock).
      const rows = unique
        .map((node) => ({ label: assertLabel(node.label), key: node.key, properties: node.properties }))
        .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      // The `where` refuses to relabel an existing node, and to write over a node another owner
      // projected (the new row's owner is null or another): that row is then missing from `returning`.
      const written = rowsOf<{ id: string }>(
        await tx.execute(sql`
          insert into graph_nodes (db_name, id, labels, properties)
          select ${database}, node.key, array[node.label], coalesce(node.properties, '{}'::jsonb)
          from jsonb_to_recordset(${json(rows)}) as node(label text, key text, properties jsonb)
          on conflict (db_name, id) do update
            set properties = graph_nodes.properties || excluded.properties, updated_at = now()
            where graph_nodes.labels[1] = excluded.labels[1]
              and (graph_nodes.properties ->> ${OWNER_PROPERTY} is null
                   or graph_nodes.properties ->> ${OWNER_PROPERTY} = excluded.properties ->> ${OWNER_PROPERTY})
          returning id`),
      );
      if (written.length !== rows.length) {
        const writtenIds = new Set(written.map((row) => row.id));
        const refused = rows.find((row) => !writtenIds.has(row.key))!;
        const existing = await getNode(tx, database, refused.key);
        if (existing?.node_type === refused.label) throw new GraphNodeOwnedError(database, refused.key, refused.label);
        throw new GraphNodeTypeClashError(database, refused.key, refused.label, existing?.node_type ?? null);
      }
    },

    async upsertRelationships(relationships: GraphRelationshipInput[]) {
      if (relationships.length === 0) return;
      const unique = mergeDuplicates(relationships, (link) => `${link.from.key}\u0000${link.type}\u0000${link.to.key}`);
      const rows = unique.map((link) => ({
        from_label: assertLabel(link.from.label),
        from_key: assertNodeKey(link.from.key),
        type: assertRelationshipType(link.type),
        to_label: assertLabel(link.to.label),
        to_key: assertNodeKey(link.to.key),
        properties: link.properties ?? {},
      }));
      const order = (row: (typeof rows)[number]) => `${row.from_key}\u0000${row.type}\u0000${row.to_key}`;
      rows.sort((a, b) => (order(a) < order(b) ? -1 : order(a) > order(b) ? 1 : 0));
      const written = rowsOf<{ from_id: string; type: string; to_id: string }>(
        await tx.execute(sql`
          insert into graph_edges (db_name, from_id, type, to_id, properties)
          select ${database}, link.from_key, link.type, link.to_key, coalesce(link.properties, '{}'::jsonb)
          from jsonb_to_recordset(${json(rows)})
            as link(from_label text, from_key text, type text, to_label text, to_key text, properties jsonb)
          where exists (select 1 from graph_nodes node
                        where node.db_name = ${database} and node.id = link.from_key and link.from_label = any(node.labels))
            and exists (select 1 from graph_nodes node
                        where node.db_name = ${database} and node.id = link.to_key and link.to_label = any(node.labels))
          on conflict (db_name, from_id, type, to_id) do update
            set properties = graph_edges.properties || excluded.properties
          returning from_id, type, to_id`),
      );
      if (written.length !== rows.length) {
        const writtenKeys = new Set(written.map((row) => `${row.from_id}\u0000${row.type}\u0000${row.to_id}`));
        const missing = rows.find((row) => !writtenKeys.has(`${row.from_key}\u0000${row.type}\u0000${row.to_key}`))!;
        throw new Error(
          `Graph relationship (${missing.from_label} ${missing.from_key})-[${missing.type}]->(${missing.to_label} ${missing.to_key}) ` +
            `in ${database}: an end node does not exist`,
        );
      }
    },

    async removePaperStructure({ paperKey, owner, nodeKeys }: PaperStructure) {
      assertNodeKey(paperKey);
      assertNodeKey(owner);
      // Two projections of one template, or of one paper, at once would interleave their deletes and
      // inserts: one at a time (always the template's lock first, then the paper's: no deadlock).
      for (const lock of [`graph-template/${database}/${owner}`, `graph-paper/${database}/${paperKey}`]) {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${lock}, 0))`);
      }
      const structuralTypes = [paperLinks.hasPart, paperLinks.hasRegion];
      const structureLabels = [paperLabels.question, paperLabels.part, paperLabels.region];
      const unowned = (node: SQL) => sql`${node}.properties ->> ${OWNER_PROPERTY} is null`;
      await tx.execute(sql`
        with recursive unowned_structure(id) as (
          select edge.to_id from graph_edges edge
          join graph_nodes node on node.db_name = edge.db_name and node.id = edge.to_id
          where edge.db_name = ${database} and edge.from_id = ${paperKey} and edge.type = ${paperLinks.hasQuestion}
            and ${unowned(sql`node`)}
          union
          select edge.to_id from graph_edges edge
          join unowned_structure on edge.from_id = unowned_structure.id
          join graph_nodes node on node.db_name = edge.db_name and node.id = edge.to_id
          where edge.db_name = ${database} and edge.type in (select jsonb_array_elements_text(${json(structuralTypes)}))
            and ${unowned(sql`node`)}
        ),
        doomed as (
          select node.id from graph_nodes node
          where node.db_name = ${database}
            and node.labels[1] in (select jsonb_array_elements_text(${json(structureLabels)}))
            and (node.properties ->> ${OWNER_PROPERTY} = ${owner}
                 or (${unowned(sql`node`)}
                     and (node.id in (select id from unowned_structure)
                          or node.id in (select jsonb_array_elements_text(${json(nodeKeys)})))))
        ),
        removed_edges as (
          delete from graph_edges edge
          where edge.db_name = ${database}
            and (edge.from_id in (select id from doomed)
                 or edge.to_id in (select id from doomed)
                 or (edge.from_id = ${paperKey} and edge.type = ${paperLinks.hasSpecification}))
        )
        delete from graph_nodes node where node.db_name = ${database} and node.id in (select id from doomed)`);
    },
  };
}

interface NodeRow {
  id: string;
  labels: string[];
  properties: Record<string, unknown>;
}

// A null written over a property removes it, as in Neo4j: the merge keeps the null, reads drop it.
const withoutNulls = (properties: Record<string, unknown> | null) =>
  Object.fromEntries(Object.entries(properties ?? {}).filter(([, value]) => value !== null));

const toNode = (row: NodeRow): GraphNode => ({
  id: row.id,
  node_type: row.labels[0] ?? "",
  labels: row.labels,
  properties: withoutNulls(row.properties),
});

async function getNode(db: Executor, database: string, id: string): Promise<GraphNode | null> {
  const [row] = rowsOf<NodeRow>(
    await db.execute(sql`select id, labels, properties from graph_nodes where db_name = ${database} and id = ${id}`),
  );
  return row ? toNode(row) : null;
}

async function listChildren(db: Executor, database: string, id: string, filter: ChildrenFilter = {}): Promise<GraphChild[] | null> {
  const conditions: SQL[] = [sql`edge.db_name = ${database}`, sql`edge.from_id = ${id}`];
  if (filter.nodeType !== undefined) conditions.push(sql`child.labels[1] = ${filter.nodeType}`);
  if (filter.nodeTypePrefix !== undefined) conditions.push(sql`starts_with(child.labels[1], ${filter.nodeTypePrefix})`);
  // One statement: the parent row tells "no such node" apart from "no children".
  const rows = rowsOf<Partial<NodeRow> & { relationship: string | null; has_children: boolean | null }>(
    await db.execute(sql`
      select linked.id, linked.labels, linked.properties, linked.relationship, linked.has_children
      from (select 1 from graph_nodes where db_name = ${database} and id = ${id}) as parent
      left join lateral (
        select child.id, child.labels, child.properties, edge.type as relationship,
               -- One hashed set of the children's own outgoing edges, built once: a correlated EXISTS per
               -- child was planned as a scan of the edges per child when the statistics saw a single
               -- parent (500 children: 64 ms; this way under 1 ms).
               child.id in (select grandchild.from_id from graph_edges grandchild
                            where grandchild.db_name = ${database}
                              and grandchild.from_id in (select sibling.to_id from graph_edges sibling
                                                         where sibling.db_name = ${database} and sibling.from_id = ${id})) as has_children
        from graph_edges edge
        join graph_nodes child on child.db_name = edge.db_name and child.id = edge.to_id
        where ${sql.join(conditions, sql` and `)}
      ) as linked on true
      order by case when jsonb_typeof(linked.properties -> 'order') = 'number' then (linked.properties ->> 'order')::numeric end
                 nulls last,
               linked.id collate "C", linked.relationship collate "C"`),
  );
  if (rows.length === 0) return null; // no parent row: the node does not exist
  return rows
    .filter((row): row is NodeRow & { relationship: string; has_children: boolean } => row.id != null)
    .map((row) => ({ ...toNode(row), relationship: row.relationship, has_children: row.has_children }));
}
