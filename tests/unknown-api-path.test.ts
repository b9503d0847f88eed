import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { httpMethods, loadRouteModule } from "./support/rest-routes";

describe("a path under /api, /database or /graph that names no operation", () => {
  it("is a 404 in the API's {detail} dialect for every method, whatever the path (generated)", async () => {
    const areas = await Promise.all(["api", "database", "graph"].map(async (area) => ({ area, module: await loadRouteModule(`${area}/[...unknown]`) })));
    for (const { area, module } of areas) {
      expect(module.dynamic, area).toBe("force-dynamic");
      expect(httpMethods.filter((method) => !(method in module)), `${area}: methods without the JSON 404`).toEqual([]);
    }
    const segment = fc.oneof(fc.webSegment(), fc.string({ minLength: 1 }).map(encodeURIComponent), fc.constantFrom("..", "%2e%2e", "%00", "papers", "v2"));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...areas), fc.constantFrom(...httpMethods), fc.array(segment, { minLength: 1, maxLength: 6 }), async ({ area, module }, method, segments) => {
        const url = new URL(`http://markbook.test/${area}/${segments.join("/")}`);
        const handler = module[method] as (request: Request) => Response | Promise<Response>;
        const response = await handler(new Request(url, { method }));
        expect(response.status).toBe(404);
        expect(response.headers.get("content-type")).toMatch(/^application\/json/);
        expect(await response.json()).toEqual({ detail: `Nothing at ${url.pathname}: /api/openapi.json lists the API's paths` });
      }),
      { numRuns: 300 },
    );
  });
});
