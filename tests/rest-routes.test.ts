import { describe, expect, it } from "vitest";
import { restRoutes } from "../server/rest-routes";
import { type AnyRouteDefinition, routeDefinitionOf } from "../server/http/route";
import { httpMethods, loadRestRoutes, loadRouteModule, openApiPathOf, restRouteFolders } from "./support/rest-routes";

describe("every REST route is defined once, and the OpenAPI document is built from the definitions", () => {
  it("each app/**/route.ts exports, for each method, the Next.js handler of a registered definition of that method and path", async () => {
    const exported = new Map<AnyRouteDefinition, string>();
    const folders = restRouteFolders();
    expect(folders.length).toBeGreaterThanOrEqual(20);
    for (const folder of folders) {
      const module = await loadRouteModule(folder);
      expect(module.dynamic, folder).toBe("force-dynamic");
      const methods = httpMethods.filter((method) => method in module);
      expect(methods.length, `${folder} exports no method`).toBeGreaterThan(0);
      for (const method of methods) {
        const definition = routeDefinitionOf(module[method]);
        const where = `${method} in app/${folder}/route.ts`;
        expect(definition, `${where} is not nextRoute(definition)`).toBeDefined();
        expect(restRoutes, `${where}: its definition is not in server/rest-routes.ts`).toContain(definition);
        expect(`${definition!.method} ${definition!.path}`, where).toBe(`${method} ${openApiPathOf(folder)}`);
        expect(exported.get(definition!), `${where}: the definition is exported twice`).toBeUndefined();
        exported.set(definition!, where);
      }
    }
    const unexported = restRoutes.filter((definition) => !exported.has(definition)).map((definition) => `${definition.method} ${definition.path}`);
    expect(unexported, "definitions no route file serves").toEqual([]);
  });

  it("gives the fuzz and cross-school tests every route file on disk, each with its documented operation", async () => {
    const routes = await loadRestRoutes();
    expect(routes.length).toBe(restRouteFolders().length);
    for (const route of routes) {
      for (const method of route.methods) expect(route.operations[method], `${method} ${route.openApiPath}`).toBeDefined();
    }
    expect(routes.map((route) => route.openApiPath)).toEqual(
      expect.arrayContaining(["/api/exam/batches/{batch_id}/queue", "/database/timetable/classes/{class_id}/students", "/sync/token"]),
    );
  });
});
