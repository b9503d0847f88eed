import type { z } from "zod";
import { type OpenApiFragment, jsonSchemaOf } from "../http/openapi-schema";
import { graphChildrenInput, graphChildrenOutput } from "../classroom/graph-children";
import { conditionalJsonResponses, ifNoneMatchParameter } from "../classroom/openapi";
import { graphSyncOutput } from "./projection";

/**
 * The graph endpoints as an OpenAPI 3.1 fragment (`tags`, `components`, `paths`), generated from the
 * zod schemas the handlers use, for /api/openapi.json to merge with the other domains' fragments.
 */

type JsonSchema = Record<string, unknown>;
const jsonSchema = (schema: z.ZodType, io: "input" | "output"): JsonSchema => jsonSchemaOf(schema, io);

const childrenQuery = jsonSchema(graphChildrenInput, "input") as { properties?: Record<string, JsonSchema>; required?: string[] };
const queryDescriptions: Record<string, string> = {
  neo4j_node_id: "Id of the node whose children are listed",
  neo4j_db_name: "Graph database of the node: the caller's personal, institute or curriculum database, or the global one for calendar nodes",
  node_type: "Only children of this type; a type starting with Calendar allows the global database",
  section_id: "`calendar` allows the global database",
};

const detailSchema = { $ref: "#/components/schemas/Error" };
const errorMeanings: Record<number, string> = {
  400: "Invalid request (see detail)",
  401: "Missing or invalid bearer token",
  403: "Outside the caller's scope, or not the owner",
  404: "Not found, or outside the caller's scope",
  500: "The projection could not be written",
};
const errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((status) => [String(status), { description: errorMeanings[status], content: { "application/json": { schema: detailSchema } } }]),
  );
const json = (schema: JsonSchema) => ({ description: "OK", content: { "application/json": { schema } } });
const security = [{ bearerAuth: [] }];

export const graphOpenApi: OpenApiFragment = {
  tags: [{ name: "graph", description: "The knowledge graph: template projection and lazy child lookup" }],
  paths: {
    "/api/exam/templates/{templateId}/graph-sync": {
      post: {
        tags: ["graph", "exam"],
        summary: "Project a template into its school's curriculum graph now",
        description:
          "Owner only. Replaces the questions, parts and regions this template projected (paper keyed by exam_code and shared by " +
          "the templates of that code, or template-<id> without one) and answers the counts. 409 when a question or area id " +
          "is part of another template's projection.",
        security,
        parameters: [{ name: "templateId", in: "path", required: true, schema: { type: "string", format: "uuid" } }],
        responses: { 200: json(jsonSchema(graphSyncOutput, "output")), ...errors(401, 403, 404, 409, 500) },
      },
    },
    "/graph/node/children": {
      get: {
        tags: ["graph", "classroom"],
        summary: "Children of one graph node, for lazy tree views",
        description:
          "Ordered by the children's numeric `order` property, then by id. Each child: neo4j_node_id, node_type, labels, " +
          "relationship (from the parent), has_children, properties.",
        security,
        parameters: Object.entries(childrenQuery.properties ?? {}).map(([name, schema]) => ({
          name,
          in: "query",
          required: childrenQuery.required?.includes(name) ?? false,
          description: queryDescriptions[name],
          schema,
        })).concat([ifNoneMatchParameter]),
        responses: { ...conditionalJsonResponses(jsonSchema(graphChildrenOutput, "output")), ...errors(400, 401, 403, 404) },
      },
    },
  },
};
