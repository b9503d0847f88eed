import type { Driver, ManagedTransaction } from "neo4j-driver";
import { logger } from "../logger";
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
import { graphDatabaseNameShape } from "../../lib/rules/graph-database-name";

export interface Neo4jSettings {
  uri: string;
  user: string;
  password?: string;
}

/**
 * Every node carries this label besides its type, with a uniqueness constraint on `id`: ids are then
 * unique per database across types (as in the embedded adapter) and every lookup by id uses the index.
 */
const NODE_LABEL = "GraphNode";

function assertDatabaseName(name: string): string {
  if (!graphDatabaseNameShape.test(name)) throw new Error(`Invalid graph database name ${JSON.stringify(name)}`);
  return name;
}

/** Neo4j properties are primitives or arrays of primitives: anything else is stored as JSON text. */
function storableProperties(properties: Record<string, unknown> | undefined): Record<string, unknown> {
  const storable: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(properties ?? {})) {
    if (value === undefined || name === "id") continue; // `id` holds the node's key
    const primitive = (item: unknown) => item === null || ["string", "number", "boolean"].includes(typeof item);
    storable[name] = primitive(value) || (Array.isArray(value) && value.every((item) => item !== null && primitive(item)))
      ? value
      : JSON.stringify(value);
  }
  return storable;
}

const typeOf = (labels: string[]) => labels.find((label) => label !== NODE_LABEL) ?? "";

type Operation = (tx: ManagedTransaction) => Promise<void>;

/**
 * The Neo4j adapter (neo4j-driver): Cypher with MERGE, one Neo4j database per graph database name
 * (created on first write; that needs an edition with several databases). The driver is created on
 * first use and closed by `close()`.
 */
export function createNeo4jGraphStore(settings: Neo4jSettings): GraphStore {
  let driver: Promise<Driver> | undefined;
  const readyDatabases = new Map<string, Promise<void>>();
  const readyConstraints = new Map<string, Promise<void>>();

  const getDriver = () =>
    (driver ??= import("neo4j-driver").then(({ default: neo4j }) =>
      neo4j.driver(settings.uri, neo4j.auth.basic(settings.user, settings.password ?? ""), { disableLosslessIntegers: true }),
    ));

  async function ensureDatabase(name: string) {
    let ready = readyDatabases.get(name);
    if (!ready) {
      ready = (async () => {
        const session = (await getDriver()).session({ database: "system" });
        try {
          await session.run(`CREATE DATABASE \`${assertDatabaseName(name)}\` IF NOT EXISTS WAIT`);
        } catch (error) {
          const code = (error as { code?: string }).code ?? "";
          if (code.includes("Unsupported")) {
            throw new Error(
              `Neo4j at ${settings.uri} cannot create the graph database ${name}: Markbook keeps one database per ` +
                `school, curriculum and user, which needs Neo4j Enterprise or Aura (Community has one database). ` +
                `Unset NEO4J_URI to use the embedded graph store.`,
              { cause: error },
            );
          }
          throw error;
        } finally {
          await session.close();
        }
      })();
      ready.catch(() => readyDatabases.delete(name)); // retry next time
      readyDatabases.set(name, ready);
    }
    await ready;
    await ensureConstraint(name);
  }

  async function ensureConstraint(name: string) {
    let ready = readyConstraints.get(name);
    if (!ready) {
      ready = (async () => {
        const session = (await getDriver()).session({ database: name });
        try {
          await session.run(`CREATE CONSTRAINT graph_node_id IF NOT EXISTS FOR (n:${NODE_LABEL}) REQUIRE n.id IS UNIQUE`);
        } finally {
          await session.close();
        }
      })();
      ready.catch(() => readyConstraints.delete(name));
      readyConstraints.set(name, ready);
    }
    await ready;
  }

  /** Runs a read; a database that does not exist yet reads as empty (null). */
  async function read<T>(database: string, work: (tx: ManagedTransaction) => Promise<T>): Promise<T | null> {
    const session = (await getDriver()).session({ database: assertDatabaseName(database), defaultAccessMode: "READ" });
    try {
      return await session.executeRead(work);
    } catch (error) {
      if ((error as { code?: string }).code === "Neo.ClientError.Database.DatabaseNotFound") return null;
      throw error;
    } finally {
      await session.close();
    }
  }

  return {
    kind: "neo4j",

    async write(database, work) {
      // Writes are collected, then run in one transaction: schema commands (database, constraint)
      // cannot share a transaction with data writes.
      const operations: Operation[] = [];
      const result = await work(neo4jWriter(database, operations));
      if (operations.length === 0) return result;
      await ensureDatabase(database);
      const session = (await getDriver()).session({ database });
      try {
        await session.executeWrite(async (tx) => {
          for (const operation of operations) await operation(tx);
        });
      } finally {
        await session.close();
      }
      return result;
    },

    async getNode(database, id) {
      return read(database, async (tx) => {
        const result = await tx.run(`MATCH (n:${NODE_LABEL} {id: $id}) RETURN labels(n) AS labels, properties(n) AS properties`, { id });
        const record = result.records[0];
        return record ? toNode(id, record.get("labels"), record.get("properties")) : null;
      });
    },

    async listChildren(database, id, filter: ChildrenFilter = {}) {
      const children = await read(database, async (tx) => {
        const result = await tx.run(
          `MATCH (parent:${NODE_LABEL} {id: $id})
           OPTIONAL MATCH (parent)-[link]->(child:${NODE_LABEL})
           WHERE ($nodeType IS NULL OR $nodeType IN labels(child))
             AND ($prefix IS NULL OR any(label IN labels(child) WHERE label <> '${NODE_LABEL}' AND label STARTS WITH $prefix))
           RETURN child.id AS id, labels(child) AS labels, properties(child) AS properties, type(link) AS relationship,
                  CASE WHEN child IS NULL THEN false ELSE EXISTS { (child)-->() } END AS has_children,
                  CASE WHEN child.order IS :: INTEGER OR child.order IS :: FLOAT THEN child.order END AS sort_order
           ORDER BY sort_order ASC, id ASC, relationship ASC`,
          { id, nodeType: filter.nodeType ?? null, prefix: filter.nodeTypePrefix ?? null },
        );
        if (result.records.length === 0) return null;
        return result.records
          .filter((record) => record.get("id") !== null)
          .map(
            (record): GraphChild => ({
              ...toNode(record.get("id"), record.get("labels"), record.get("properties")),
              relationship: record.get("relationship"),
              has_children: record.get("has_children"),
            }),
          );
      });
      return children ?? null;
    },

    async close() {
      if (!driver) return;
      const closing = driver;
      driver = undefined;
      readyDatabases.clear();
      readyConstraints.clear();
      await (await closing).close().catch((error: unknown) => logger.warn("The Neo4j driver did not close cleanly", error));
    },
  };
}

function toNode(id: string, labels: string[], properties: Record<string, unknown>): GraphNode {
  const ownLabels = labels.filter((label) => label !== NODE_LABEL);
  // `id` is the node's key here, not one of its properties (as in the embedded adapter).
  const { id: _key, ...ownProperties } = properties;
  return { id, node_type: typeOf(labels), labels: ownLabels, properties: ownProperties };
}

function groupBy<T>(items: T[], keyOf: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const key = keyOf(item);
    groups.set(key, [...(groups.get(key) ?? []), item]);
  }
  return groups;
}

function neo4jWriter(database: string, operations: Operation[]): GraphWriter {
  return {
    async upsertNodes(nodes: GraphNodeInput[]) {
      for (const [label, group] of groupBy(nodes, (node) => assertLabel(node.label))) {
        const rows = group.map((node) => ({
          key: assertNodeKey(node.key),
          owner: node.owner ?? null,
          properties: storableProperties(ownedProperties(node)),
        }));
        operations.push(async (tx) => {
          // A node is written only when it has this type and no owner or this row's owner; each row
          // reports why it was not, so the unit fails with the right error.
          const result = await tx.run(
            `UNWIND $rows AS row
             MERGE (n:${NODE_LABEL} {id: row.key})
             ON CREATE SET n:${label}
             WITH n, row, n:${label} AS sameType,
                  coalesce(n.${OWNER_PROPERTY} IS NULL OR n.${OWNER_PROPERTY} = row.owner, false) AS sameOwner
             FOREACH (_ IN CASE WHEN sameType AND sameOwner THEN [1] ELSE [] END | SET n += row.properties)
             RETURN row.key AS key, sameType, sameOwner`,
            { rows },
          );
          const refused = result.records.find((record) => !record.get("sameType") || !record.get("sameOwner"));
          if (!refused) return;
          if (!refused.get("sameType")) throw new GraphNodeTypeClashError(database, refused.get("key"), label, null);
          throw new GraphNodeOwnedError(database, refused.get("key"), label);
        });
      }
    },

    async upsertRelationships(relationships: GraphRelationshipInput[]) {
      const groups = groupBy(
        relationships,
        (link) => `${assertLabel(link.from.label)} ${assertRelationshipType(link.type)} ${assertLabel(link.to.label)}`,
      );
      for (const [signature, group] of groups) {
        const [fromLabel, type, toLabel] = signature.split(" ") as [string, string, string];
        const rows = group.map((link) => ({
          source: assertNodeKey(link.from.key),
          target: assertNodeKey(link.to.key),
          properties: storableProperties(link.properties),
        }));
        operations.push(async (tx) => {
          const result = await tx.run(
            `UNWIND $rows AS row
             MATCH (source:${NODE_LABEL}:${fromLabel} {id: row.source})
             MATCH (target:${NODE_LABEL}:${toLabel} {id: row.target})
             MERGE (source)-[link:${type}]->(target)
             SET link += row.properties
             RETURN count(DISTINCT [row.source, row.target]) AS written`,
            { rows },
          );
          const expected = new Set(rows.map((row) => `${row.source}\u0000${row.target}`)).size;
          if (Number(result.records[0]?.get("written") ?? 0) !== expected) {
            throw new Error(`Graph relationship (${fromLabel})-[${type}]->(${toLabel}): an end node does not exist`);
          }
        });
      }
    },

    async removePaperStructure({ paperKey, owner, nodeKeys }: PaperStructure) {
      assertNodeKey(paperKey);
      assertNodeKey(owner);
      const { question, part, region, paper } = paperLabels;
      const structure = `(n:${question} OR n:${part} OR n:${region})`;
      operations.push(async (tx) => {
        // Unowned structure (written before owners were recorded) that hangs from the paper.
        const reached = await tx.run(
          `MATCH path = (:${NODE_LABEL}:${paper} {id: $paperKey})-[:${paperLinks.hasQuestion}]->(:${question})
                 -[:${paperLinks.hasPart}|${paperLinks.hasRegion}*0..]->(n)
           WHERE all(node IN tail(nodes(path)) WHERE node.${OWNER_PROPERTY} IS NULL)
           RETURN collect(DISTINCT n.id) AS ids`,
          { paperKey },
        );
        const ids = [...new Set([...((reached.records[0]?.get("ids") as string[] | undefined) ?? []), ...nodeKeys])];
        await tx.run(`MATCH (:${NODE_LABEL}:${paper} {id: $paperKey})-[link:${paperLinks.hasSpecification}]->() DELETE link`, {
          paperKey,
        });
        await tx.run(
          `UNWIND $ids AS id
           MATCH (n:${NODE_LABEL} {id: id}) WHERE ${structure} AND n.${OWNER_PROPERTY} IS NULL
           DETACH DELETE n`,
          { ids },
        );
        // Everything this owner projected, wherever it hangs; never a node of another owner.
        await tx.run(`MATCH (n:${NODE_LABEL}) WHERE ${structure} AND n.${OWNER_PROPERTY} = $owner DETACH DELETE n`, { owner });
      });
    },
  };
}
