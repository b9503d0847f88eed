import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { GET } from "../app/api/openapi.json/route";

type Operation = {
  operationId: string;
  tags: string[];
  summary: string;
  parameters?: { name: string; in: string; required: boolean; description?: string; schema: Record<string, unknown> }[];
  requestBody?: { content: Record<string, { schema: Record<string, unknown> }> };
  responses: Record<string, { description?: string; content?: Record<string, { schema: Record<string, unknown> }> }>;
};
type Document = {
  openapi: string;
  paths: Record<string, Record<string, Operation>>;
  tags: { name: string }[];
  components: { schemas: Record<string, { required?: string[] }> };
};

const loadDocument = async (): Promise<Document> => {
  const response = GET();
  expect(response.status).toBe(200);
  return response.json();
};
const operationsOf = (document: Document) =>
  Object.entries(document.paths).flatMap(([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })));
/** The REST routes' operations; the speech service under /v1 has its own rules (tests/speech-openapi.test.ts). */
const restOperationsOf = (document: Document) => operationsOf(document).filter(({ path }) => !path.startsWith("/v1/"));

describe("GET /api/openapi.json, assembled from the route definitions", () => {
  it("is a valid OpenAPI 3.1 document (checked against the specification's JSON Schema)", async () => {
    const document = await loadDocument();
    const validator = new Validator();
    const result = await validator.validate(structuredClone(document));
    expect(result.errors).toBeUndefined();
    expect([result.valid, validator.version]).toEqual([true, "3.1"]);
    // The check can fail: a response without its required description is refused.
    const broken = structuredClone(document);
    delete (broken.paths["/v1/models"]!.get!.responses["200"] as { description?: string }).description;
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it("gives every operation a unique operationId, a tag of the document, a summary, and a {detail} body for every REST error status", async () => {
    const document = await loadDocument();
    expect(document.openapi).toBe("3.1.0");
    const ids = operationsOf(document).map(({ operation }) => operation.operationId);
    expect(new Set(ids).size).toBe(ids.length);
    const tags = document.tags.map((tag) => tag.name);
    for (const { path, method, operation } of operationsOf(document)) {
      expect(operation.summary, `${method} ${path}`).toBeTruthy();
      for (const tag of operation.tags) expect(tags, `${method} ${path}`).toContain(tag);
    }
    const operations = restOperationsOf(document);
    expect(operations.length).toBeGreaterThanOrEqual(26);
    for (const { path, method, operation } of operations) {
      const name = `${method} ${path}`;
      expect(Object.keys(operation.responses), name).toContain("401");
      for (const [status, response] of Object.entries(operation.responses)) {
        if (Number(status) >= 400) {
          expect(response.content?.["application/json"]?.schema, `${name} ${status}`).toEqual({ $ref: "#/components/schemas/Error" });
        }
      }
    }
  });

  it("names every path parameter in snake_case, once in the path and once as a required uuid parameter", async () => {
    const document = await loadDocument();
    for (const { path, method, operation } of restOperationsOf(document)) {
      const inPath = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
      const declared = (operation.parameters ?? []).filter((parameter) => parameter.in === "path");
      expect(declared.map((parameter) => parameter.name), `${method} ${path}`).toEqual(inPath);
      for (const parameter of declared) {
        expect(parameter.name).toMatch(/^[a-z]+(_[a-z]+)*$/);
        expect(parameter).toMatchObject({ required: true, schema: { type: "string", format: "uuid" } });
        expect(parameter.description).toBeTruthy();
      }
    }
  });

  it("generates parameters, bodies and replies from the handlers' zod schemas (snake_case fields, dates as date-time)", async () => {
    const { paths } = await loadDocument();
    const save = paths["/api/exam/templates/{template_id}"]!.put!;
    const body = save.requestBody!.content["application/json"]!.schema as { properties: Record<string, { items: { properties: object } }> };
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining(["title", "subject", "page_count", "status", "questions", "response_areas", "boundaries"]),
    );
    expect(Object.keys(body.properties.response_areas!.items.properties)).toEqual(
      expect.arrayContaining(["id", "question_id", "page", "kind", "x", "y", "width", "height"]),
    );
    expect(JSON.stringify(save.responses["200"])).toContain('"created_at":{"type":"string","format":"date-time"}');
    const mark = paths["/api/exam/marks/{mark_id}"]!.put!.requestBody!.content["application/json"]!.schema;
    expect(mark.required).toEqual(expect.arrayContaining(["submission_id", "question_id", "awarded_marks"]));
    const scans = paths["/api/exam/batches/{batch_id}/scans"]!.post!;
    expect(scans.responses).toHaveProperty("413");
    expect(Object.keys(scans.requestBody!.content)).toEqual(["multipart/form-data"]);

    const listTemplates = paths["/api/exam/templates"]!.get!.parameters!;
    expect(listTemplates.map((parameter) => parameter.name).sort()).toEqual(["exam_code", "include_archived", "status", "subject"]);
    expect(listTemplates.find((parameter) => parameter.name === "status")).toMatchObject({ in: "query", required: false, description: "Only this status" });
    const timetables = paths["/database/timetable/timetables"]!.get!.parameters!;
    expect(timetables.map((parameter) => parameter.name).sort()).toEqual(["active", "class_id", "type"]);
    expect(paths["/get_canvas_node_file"]!.get!.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "path", required: true }), expect.objectContaining({ name: "db_name", required: true })]),
    );
    const classes = JSON.stringify(paths["/database/timetable/classes"]!.get!.responses["200"]);
    expect(classes).toContain('"total"');
    expect(classes).toContain('"date-time"');
  });

  it("documents the reply cache's ETag and 304 on the cached lists only", async () => {
    const document = await loadDocument();
    const cached = operationsOf(document).filter(({ operation }) => "304" in operation.responses);
    expect(cached.map(({ method, path }) => `${method} ${path}`).sort()).toEqual(
      [
        "get /database/timetable/classes",
        "get /database/timetable/classes/school/students",
        "get /database/timetable/classes/{class_id}/students",
        "get /graph/node/children",
        "get /me/bootstrap",
      ].sort(),
    );
    for (const { operation } of cached) {
      expect(operation.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ name: "If-None-Match", in: "header" })]));
    }
  });

  it("has no dangling $ref: every reference resolves inside the document", async () => {
    const document = await loadDocument();
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((match) => match[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      const target = ref.split("/").reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
      expect(target, ref).toBeDefined();
    }
    expect(JSON.stringify(document)).not.toContain("$defs");
    expect(document.components.schemas.Error!.required).toEqual(["detail"]);
  });
});
