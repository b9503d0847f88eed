import { index, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The embedded graph store: a property graph in two tables, partitioned by database name as Neo4j is.
 * Only the graph port touches these tables; the row-level-security role has no grant on them.
 */
export const graphNodes = pgTable(
  "graph_nodes",
  {
    db_name: text().notNull(),
    id: text().notNull(),
    /** The node's labels; the first one is its type (for example "Question", "CalendarYear"). */
    labels: text().array().notNull(),
    properties: jsonb().$type<Record<string, unknown>>().notNull().default({}),
    updated_at: timestamp({ withTimezone: true }).notNull().defaultNow(),
  },
  (table) => [primaryKey({ columns: [table.db_name, table.id] }), index("graph_nodes_labels_idx").using("gin", table.labels)],
);

export const graphEdges = pgTable(
  "graph_edges",
  {
    db_name: text().notNull(),
    from_id: text().notNull(),
    type: text().notNull(),
    to_id: text().notNull(),
    properties: jsonb().$type<Record<string, unknown>>().notNull().default({}),
  },
  (table) => [
    primaryKey({ columns: [table.db_name, table.from_id, table.type, table.to_id] }),
    index("graph_edges_to_idx").on(table.db_name, table.to_id),
  ],
);
