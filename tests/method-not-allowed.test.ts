import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { methodNotAllowed, methodTable } from "../server/http/method-not-allowed";
import { httpMethods } from "../server/http/route";
import { restRoutes } from "../server/rest-routes";

const table = methodTable(restRoutes);
/** Each REST path with the methods its definitions give it. */
const paths = [...new Set(restRoutes.map((route) => route.path))].map((path) => ({
  path,
  // In the order the Allow header lists them.
  methods: httpMethods.filter((method) => restRoutes.some((route) => route.path === path && route.method === method)),
}));
/** A path parameter's value: anything a URL segment can hold. */
const segmentValue = fc.oneof(fc.uuid(), fc.webSegment().filter(Boolean), fc.string({ minLength: 1 }).map(encodeURIComponent));
const concretePath = (path: string) =>
  fc.array(segmentValue, { minLength: 8, maxLength: 8 }).map((values) => {
    let i = 0;
    return path.replace(/\{[^}]+\}/g, () => values[i++]!);
  });

describe("a REST path asked with a method it does not have", () => {
  it("knows each REST path's methods, whatever its parameters hold (generated)", () => {
    expect(paths.length).toBeGreaterThan(20);
    fc.assert(
      fc.property(fc.constantFrom(...paths).chain(({ path, methods }) => concretePath(path).map((concrete) => ({ path, concrete, methods }))), ({ concrete, methods, path }) => {
        // A literal path (`/api/exam/files`) never reads as a parameter of another (`/{file_id}`), and back.
        const expected = paths.find((candidate) => candidate.path === concrete)?.methods ?? methods;
        expect(table.methodsAt(concrete), `${concrete} (${path})`).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });

  it("is a 405 naming the methods it has, in the Allow header too; its own methods, HEAD and OPTIONS pass", () => {
    for (const { path, methods } of paths) {
      const concrete = path.replace(/\{[^}]+\}/g, "00000000-0000-4000-8000-000000000000");
      for (const method of httpMethods) {
        const refused = methodNotAllowed(table, method, `${concrete}?x=1`);
        if (methods.includes(method)) {
          expect(refused, `${method} ${path}`).toBeNull();
          continue;
        }
        expect(refused, `${method} ${path}`).toEqual({
          status: 405,
          allow: methods.join(", "),
          body: { detail: `${method} is not an operation of ${concrete}: it answers ${methods.join(", ")}` },
        });
      }
      for (const method of ["HEAD", "OPTIONS", undefined]) expect(methodNotAllowed(table, method, concrete)).toBeNull();
    }
  });

  it("leaves every other path to Next.js: pages, tRPC, next-auth, the speech API, unknown API paths", () => {
    for (const url of ["/", "/batches/1", "/api/trpc/exam.templates.list", "/api/auth/session", "/api/openapi.json", "/v1/models", "/api/exam/papers", "/api/exam/templates/x/y", "//evil", "http://[::1"]) {
      for (const method of httpMethods) expect(methodNotAllowed(table, method, url), `${method} ${url}`).toBeNull();
    }
  });
});
