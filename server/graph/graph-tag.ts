/** The OpenAPI tag of the knowledge graph's routes (a template's projection, lazy child lookup). */
export const graphTag = { name: "graph", description: "The knowledge graph: template projection and lazy child lookup" };
