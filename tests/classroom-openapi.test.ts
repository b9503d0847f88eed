import { describe, expect, it } from "vitest";
import { classroomOpenApi } from "../server/classroom/openapi";
import { buildOpenApiDocument } from "../server/http/openapi";

describe("classroom OpenAPI fragment", () => {
  const paths = classroomOpenApi.paths as Record<string, Record<string, { responses?: Record<string, unknown>; parameters?: Array<{ name: string }> }>>;

  it("documents every classroom endpoint, including the paths the contract leaves open", () => {
    expect(Object.keys(paths).sort()).toEqual(
      [
        "/me/bootstrap",
        "/database/timetable/timetables",
        "/database/timetable/classes",
        "/database/timetable/classes/teaching",
        "/database/timetable/classes/enrolled",
        "/database/timetable/classes/school/students",
        "/database/timetable/classes/{class_id}/students",
        "/get_canvas_node_file",
        "/put_canvas_node_file",
        "/sync/token",
      ].sort(),
    );
    expect(paths["/database/timetable/classes/{class_id}/students"]).toHaveProperty("post");
    expect(paths["/put_canvas_node_file"]).toHaveProperty("put");
    expect(paths["/sync/token"]).toHaveProperty("post");
  });

  it("generates parameters and bodies from the handlers' zod schemas", () => {
    const timetables = paths["/database/timetable/timetables"]!.get!;
    expect(timetables.parameters!.map((parameter) => parameter.name).sort()).toEqual(["active", "class_id", "type"]);
    const snapshot = paths["/get_canvas_node_file"]!.get!;
    expect(snapshot.parameters).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "path", required: true }), expect.objectContaining({ name: "db_name", required: true })]),
    );
    const classes = JSON.stringify(paths["/database/timetable/classes"]!.get!.responses!["200"]);
    expect(classes).toContain('"total"');
    expect(classes).toContain('"date-time"');
  });

  it("is plain JSON with a {detail} error body for every error status", () => {
    const copy = JSON.parse(JSON.stringify(classroomOpenApi));
    expect(copy).toEqual(classroomOpenApi);
    for (const operations of Object.values(paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        if (method === "parameters") continue;
        for (const [status, response] of Object.entries(operation.responses ?? {})) {
          if (Number(status) >= 400) expect(JSON.stringify(response)).toContain("#/components/schemas/Error");
        }
      }
    }
  });

  it("is part of /api/openapi.json, with every $ref of its paths resolving inside that document", () => {
    const document = buildOpenApiDocument();
    for (const path of Object.keys(paths)) expect(document.paths).toHaveProperty([path]);
    expect(document.tags.map((tag: { name: string }) => tag.name)).toContain("classroom");
    const classroomPaths = Object.fromEntries(Object.keys(paths).map((path) => [path, document.paths[path]]));
    const refs = [...JSON.stringify(classroomPaths).matchAll(/"\$ref":"#\/([^"]+)"/g)].map((match) => match[1]!);
    expect(refs.length).toBeGreaterThan(0);
    for (const ref of refs) {
      const target = ref.split("/").reduce<unknown>((node, key) => (node as Record<string, unknown> | undefined)?.[key], document);
      expect(target, ref).toBeDefined();
    }
  });
});
