import { describe, expect, it } from "vitest";
import { loadRestRoutes } from "./support/rest-routes";

describe("the REST route list used by the fuzz and cross-school tests", () => {
  it("finds every route file on disk, each documented in /api/openapi.json with exactly its methods", async () => {
    const routes = await loadRestRoutes();
    expect(routes.length).toBeGreaterThanOrEqual(26);
    for (const route of routes) {
      expect(route.methods.length, route.folder).toBeGreaterThan(0);
      for (const method of route.methods) expect(route.operations[method], `${method} ${route.openApiPath}`).toBeDefined();
    }
    expect(routes.map((route) => route.openApiPath)).toEqual(
      expect.arrayContaining(["/api/exam/batches/{batchId}/queue", "/database/timetable/classes/{class_id}/students", "/sync/token"]),
    );
  });
});
