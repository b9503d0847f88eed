import { describe, expect, it } from "vitest";
import { GET } from "../app/api/openapi.json/route";

/** Route modules of the exam REST surface, with the OpenAPI path each one serves. */
const routes: Record<string, () => Promise<Record<string, unknown>>> = {
  "/api/exam/templates": () => import("../app/api/exam/templates/route"),
  "/api/exam/templates/{templateId}": () => import("../app/api/exam/templates/[templateId]/route"),
  "/api/exam/questions/{questionId}": () => import("../app/api/exam/questions/[questionId]/route"),
  "/api/exam/batches": () => import("../app/api/exam/batches/route"),
  "/api/exam/batches/{batchId}/archive": () => import("../app/api/exam/batches/[batchId]/archive/route"),
  "/api/exam/batches/{batchId}/queue": () => import("../app/api/exam/batches/[batchId]/queue/route"),
  "/api/exam/batches/{batchId}/results": () => import("../app/api/exam/batches/[batchId]/results/route"),
  "/api/exam/batches/{batchId}/csv": () => import("../app/api/exam/batches/[batchId]/csv/route"),
  "/api/exam/batches/{batchId}/scans": () => import("../app/api/exam/batches/[batchId]/scans/route"),
  "/api/exam/marks/{markId}": () => import("../app/api/exam/marks/[markId]/route"),
  "/api/exam/files": () => import("../app/api/exam/files/route"),
  "/api/exam/files/{fileId}": () => import("../app/api/exam/files/[fileId]/route"),
  "/api/exam/submissions/{submissionId}/scan": () => import("../app/api/exam/submissions/[submissionId]/scan/route"),
};
const httpMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"];

describe("GET /api/openapi.json", () => {
  it("serves an OpenAPI 3.1 document describing exactly the methods each exam route handles", async () => {
    const response = GET();
    expect(response.status).toBe(200);
    const document = await response.json();
    expect(document.openapi).toBe("3.1.0");
    for (const [path, load] of Object.entries(routes)) {
      const module = await load();
      expect(module.dynamic, path).toBe("force-dynamic");
      const handled = httpMethods.filter((method) => typeof module[method] === "function").map((m) => m.toLowerCase());
      const documented = Object.keys(document.paths[path] ?? {}).filter((key) => key !== "parameters");
      expect(documented.sort(), path).toEqual(handled.sort());
    }
  });

  it("generates request and response schemas from the zod schemas (snake_case fields, dates as date-time)", async () => {
    const document = await GET().json();
    const save = document.paths["/api/exam/templates/{templateId}"].put;
    const body = save.requestBody.content["application/json"].schema;
    expect(Object.keys(body.properties)).toEqual(
      expect.arrayContaining(["title", "subject", "page_count", "status", "questions", "response_areas", "boundaries"]),
    );
    expect(Object.keys(body.properties.response_areas.items.properties)).toEqual(
      expect.arrayContaining(["id", "question_id", "page", "kind", "x", "y", "width", "height"]),
    );
    const template = save.responses[200].content["application/json"].schema;
    expect(template.properties.created_at).toMatchObject({ type: "string", format: "date-time" });
    const mark = document.paths["/api/exam/marks/{markId}"].put.requestBody.content["application/json"].schema;
    expect(mark.required).toEqual(expect.arrayContaining(["submission_id", "question_id", "awarded_marks"]));
    expect(document.paths["/api/exam/batches/{batchId}/scans"].post.responses).toHaveProperty("413");
    expect(document.components.schemas.Error.required).toEqual(["detail"]);
  });

  it("has no dangling $ref: every reference resolves inside the document", async () => {
    const document = await GET().json();
    const refs = [...JSON.stringify(document).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((match) => match[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of new Set(refs)) {
      const target = ref.split("/").reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
      expect(target, ref).toBeDefined();
    }
    expect(JSON.stringify(document)).not.toContain("$defs");
  });
});
