import { beforeEach, describe, expect, it, vi } from "vitest";

/**
 * The Neo4j adapter's plumbing against a recording stand-in for neo4j-driver: which database each
 * statement goes to, in what order, with which parameters. (Its behaviour against a real server is
 * the contract suite in graph-port.test.ts, which runs when NEO4J_URI is set.)
 */

interface Statement {
  database: string;
  cypher: string;
  params: Record<string, unknown>;
  mode: "auto" | "write" | "read";
}

const fake = vi.hoisted(() => {
  const state = {
    statements: [] as Statement[],
    driversCreated: 0,
    driversClosed: 0,
    missingDatabases: new Set<string>(),
    createDatabaseError: null as null | (Error & { code: string }),
    readRecords: [] as Record<string, unknown>[],
    /** A node key the stand-in reports as owned by another owner. */
    refusedOwner: null as string | null,
    /** A node key the stand-in reports as existing with another label. */
    refusedType: null as string | null,
  };
  const record = (values: Record<string, unknown>) => ({ get: (key: string) => values[key] });
  function answer(statement: Statement) {
    const { cypher, params } = statement;
    if (cypher.startsWith("CREATE DATABASE") && state.createDatabaseError) throw state.createDatabaseError;
    if (cypher.includes("AS sameOwner")) {
      const refused = state.refusedOwner;
      return {
        records: (params.rows as { key: string }[]).map((row) => record({ key: row.key, sameType: row.key !== state.refusedType, sameOwner: row.key !== refused })),
      };
    }
    if (cypher.includes("AS written")) return { records: [record({ written: (params.rows as unknown[]).length })] };
    if (cypher.includes("AS ids")) return { records: [record({ ids: ["old-question"] })] };
    return { records: state.readRecords.map(record) };
  }
  const driver = () => {
    state.driversCreated += 1;
    return {
      session: ({ database }: { database: string }) => {
        const run = (mode: Statement["mode"]) => async (cypher: string, params: Record<string, unknown> = {}) => {
          const statement = { database, cypher: cypher.replace(/\s+/g, " ").trim(), params, mode };
          state.statements.push(statement);
          return answer(statement);
        };
        return {
          run: run("auto"),
          executeWrite: async (work: (tx: unknown) => Promise<unknown>) => work({ run: run("write") }),
          executeRead: async (work: (tx: unknown) => Promise<unknown>) => {
            if (state.missingDatabases.has(database)) throw Object.assign(new Error("no db"), { code: "Neo.ClientError.Database.DatabaseNotFound" });
            return work({ run: run("read") });
          },
          close: async () => {},
        };
      },
      close: async () => {
        state.driversClosed += 1;
      },
    };
  };
  return { state, module: { default: { driver, auth: { basic: (user: string, password: string) => ({ user, password }) } } } };
});

vi.mock("neo4j-driver", () => fake.module);

const { createNeo4jGraphStore } = await import("../server/graph/neo4j");

describe("Neo4j adapter plumbing", () => {
  beforeEach(() => {
    Object.assign(fake.state, { statements: [], missingDatabases: new Set(), createDatabaseError: null, readRecords: [], refusedOwner: null, refusedType: null });
  });

  const newStore = () => createNeo4jGraphStore({ uri: "bolt://neo4j.test:7687", user: "neo4j", password: "secret" });

  it("creates the database and the id constraint once, then runs a unit's writes in one write transaction", async () => {
    const store = newStore();
    const createdBefore = fake.state.driversCreated;
    await store.write("school-a", async (writer) => {
      await writer.upsertNodes([
        { label: "School", key: "s1", properties: { name: "A", id: "ignored", address: { town: "Leeds" }, tags: ["x"] } },
        { label: "Class", key: "c1" },
      ]);
      await writer.upsertRelationships([{ from: { label: "School", key: "s1" }, type: "HAS_CLASS", to: { label: "Class", key: "c1" } }]);
    });
    await store.write("school-a", (writer) => writer.upsertNodes([{ label: "Class", key: "c2" }]));
    expect(fake.state.driversCreated).toBe(createdBefore + 1); // created lazily, once

    const [create, constraint, ...rest] = fake.state.statements;
    expect(create).toMatchObject({ database: "system", mode: "auto", cypher: "CREATE DATABASE `school-a` IF NOT EXISTS WAIT" });
    expect(constraint).toMatchObject({ database: "school-a", mode: "auto" });
    expect(constraint!.cypher).toMatch(/^CREATE CONSTRAINT graph_node_id IF NOT EXISTS FOR \(n:GraphNode\) REQUIRE n\.id IS UNIQUE$/);
    expect(rest.every((statement) => statement.database === "school-a" && statement.mode === "write")).toBe(true);
    expect(rest.map((statement) => statement.cypher.split(" ").slice(0, 4).join(" "))).toEqual([
      "UNWIND $rows AS row", // School
      "UNWIND $rows AS row", // Class
      "UNWIND $rows AS row", // HAS_CLASS
      "UNWIND $rows AS row", // the second unit
    ]);
    expect(rest[0]!.cypher).toContain("MERGE (n:GraphNode {id: row.key}) ON CREATE SET n:School WITH n, row, n:School AS sameType");
    // Neo4j stores primitives and arrays of them: a map becomes JSON text, and `id` stays the key.
    expect(rest[0]!.params.rows).toEqual([{ key: "s1", owner: null, properties: { name: "A", address: '{"town":"Leeds"}', tags: ["x"] } }]);
    expect(rest[2]!.cypher).toContain("MATCH (source:GraphNode:School {id: row.source}) MATCH (target:GraphNode:Class {id: row.target}) MERGE (source)-[link:HAS_CLASS]->(target)");
  });

  it("removes a template's structure: what it owns, unowned nodes from the paper plus the claimed ids, in the same transaction", async () => {
    const store = newStore();
    await store.write("curriculum-a", (writer) => writer.removePaperStructure({ paperKey: "P1", owner: "T1", nodeKeys: ["q-new"] }));
    const writes = fake.state.statements.filter((statement) => statement.mode === "write");
    expect(writes).toHaveLength(4);
    expect(writes[0]!.params).toEqual({ paperKey: "P1" });
    expect(writes[0]!.cypher).toContain("WHERE all(node IN tail(nodes(path)) WHERE node.projected_by IS NULL)");
    expect(writes[1]!.cypher).toContain("[link:HAS_SPECIFICATION]");
    expect(writes[1]!.cypher).not.toContain("HAS_QUESTION"); // the paper is shared: other templates' questions stay linked
    expect(writes[2]!.params).toEqual({ ids: ["old-question", "q-new"] });
    expect(writes[2]!.cypher).toContain("AND n.projected_by IS NULL DETACH DELETE n");
    expect(writes[3]!.params).toEqual({ owner: "T1" });
    expect(writes[3]!.cypher).toContain("AND n.projected_by = $owner DETACH DELETE n");
  });

  it("writes the owner with a node, only where the node has no owner or the same one, and names a refused node", async () => {
    const store = newStore();
    await store.write("curriculum-a", (writer) =>
      writer.upsertNodes([{ label: "Question", key: "q1", owner: "T1", properties: { label: "1", projected_by: "forged" } }]),
    );
    const [upsert] = fake.state.statements.filter((statement) => statement.mode === "write");
    expect(upsert!.params.rows).toEqual([{ key: "q1", owner: "T1", properties: { label: "1", projected_by: "T1" } }]);
    expect(upsert!.cypher).toContain("coalesce(n.projected_by IS NULL OR n.projected_by = row.owner, false) AS sameOwner");
    expect(upsert!.cypher).toContain("FOREACH (_ IN CASE WHEN sameType AND sameOwner THEN [1] ELSE [] END | SET n += row.properties)");
    fake.state.refusedOwner = "q2";
    await expect(
      store.write("curriculum-a", (writer) => writer.upsertNodes([{ label: "Question", key: "q2", owner: "T2" }])),
    ).rejects.toMatchObject({ name: "GraphNodeOwnedError", key: "q2", database: "curriculum-a" });
    fake.state.refusedType = "q3";
    await expect(
      store.write("curriculum-a", (writer) => writer.upsertNodes([{ label: "Region", key: "q3", owner: "T2" }])),
    ).rejects.toMatchObject({ name: "GraphNodeTypeClashError", key: "q3", label: "Region", database: "curriculum-a" });
  });

  it("refuses labels, relationship types and database names that could inject Cypher, before running anything", async () => {
    const store = newStore();
    await expect(store.write("school-a", (writer) => writer.upsertNodes([{ label: "School) DETACH DELETE (m", key: "x" }]))).rejects.toThrow(
      /Invalid graph label/,
    );
    await expect(
      store.write("school-a", (writer) =>
        writer.upsertRelationships([{ from: { label: "A", key: "a" }, type: "X]->() DELETE", to: { label: "B", key: "b" } }]),
      ),
    ).rejects.toThrow(/Invalid graph relationship type/);
    await expect(store.write("bad`name", (writer) => writer.upsertNodes([{ label: "A", key: "a" }]))).rejects.toThrow(/Invalid graph database name/);
    await expect(store.getNode("bad`name", "a")).rejects.toThrow(/Invalid graph database name/);
    expect(fake.state.statements.filter((statement) => statement.mode !== "auto")).toEqual([]);
  });

  it("reads a database that does not exist as empty", async () => {
    fake.state.missingDatabases.add("user-nobody");
    const store = newStore();
    expect(await store.getNode("user-nobody", "u1")).toBeNull();
    expect(await store.listChildren("user-nobody", "u1")).toBeNull();
  });

  it("maps children: own labels only, the key apart from the properties, nothing for a childless node", async () => {
    const store = newStore();
    fake.state.readRecords = [
      { id: "m1", labels: ["GraphNode", "CalendarMonth"], properties: { id: "m1", name: "January", order: 1 }, relationship: "HAS_MONTH", has_children: true },
    ];
    expect(await store.listChildren("global", "calendar-2026", { nodeTypePrefix: "Calendar" })).toEqual([
      { id: "m1", node_type: "CalendarMonth", labels: ["CalendarMonth"], properties: { name: "January", order: 1 }, relationship: "HAS_MONTH", has_children: true },
    ]);
    const read = fake.state.statements.at(-1)!;
    expect(read).toMatchObject({ database: "global", mode: "read", params: { id: "calendar-2026", nodeType: null, prefix: "Calendar" } });
    fake.state.readRecords = [{ id: null, labels: null, properties: null, relationship: null, has_children: false }];
    expect(await store.listChildren("global", "calendar-2026-01-05")).toEqual([]);
    fake.state.readRecords = [];
    expect(await store.listChildren("global", "nothing")).toBeNull();
  });

  it("explains that one database per name needs an edition with several databases", async () => {
    fake.state.createDatabaseError = Object.assign(new Error("Unsupported administration command"), {
      code: "Neo.ClientError.Statement.UnsupportedAdministrationCommand",
    });
    const store = newStore();
    await expect(store.write("school-b", (writer) => writer.upsertNodes([{ label: "School", key: "s" }]))).rejects.toThrow(
      /needs Neo4j Enterprise or Aura.*Unset NEO4J_URI/,
    );
    expect(fake.state.statements.some((statement) => statement.mode === "write")).toBe(false);
  });

  it("closes its driver once, and opens a new one if used again", async () => {
    const store = newStore();
    await store.getNode("global", "x");
    const closedBefore = fake.state.driversClosed;
    await store.close();
    await store.close();
    expect(fake.state.driversClosed).toBe(closedBefore + 1);
    const createdBefore = fake.state.driversCreated;
    await store.getNode("global", "x");
    expect(fake.state.driversCreated).toBe(createdBefore + 1);
  });
});
