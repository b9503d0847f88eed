/**
 * Graph database names, as Neo4j accepts them: 3 to 63 characters, lowercase letters, digits, dots and
 * dashes, starting with a letter. Every name Markbook makes (`school-…`, `curriculum-…`, `user-…`,
 * GRAPH_GLOBAL_DB) has this shape; it never holds a `/` or starts with a dot, so it is also safe as one
 * part of a storage key. Read by the configuration (server/env.ts), the canvas addresses
 * (server/classroom/snapshots.ts) and the Neo4j adapter (server/graph/neo4j.ts): a rule of words, below all three.
 */
export const graphDatabaseNameShape = /^[a-z][a-z0-9.-]{2,62}$/;
export const graphDatabaseNameRule = "3 to 63 lowercase letters, digits, dots or dashes, starting with a letter";
