import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { listedOperations } from "../server/operation-catalogue";
import { type AnyRouteDefinition, replyWith, routeDefinitionOf, streamedBody } from "../server/http/route";
import { type AnyOperation, defineOperation } from "../server/operations/define";
import { restRouteOf } from "../server/operations/rest";
import { restRoutes } from "../server/rest-routes";
import { appRouter } from "../server/trpc/root";
import { loadRouteModule } from "./support/rest-routes";

/**
 * The operation catalogue (server/operation-catalogue.ts): each operation is defined once and its tRPC procedure,
 * its REST route and its route file's export are derived from it. How the derived faces answer is
 * the REST and tRPC suites' (people-rest, people, sign-in-slips, the cross-school matrix); the document
 * is held byte for byte by tests/openapi-document.test.ts.
 */

const procedures = appRouter._def.procedures as unknown as Record<string, { _def: { type: string } }>;

describe("the operation catalogue", () => {
  it("gives each operation the tRPC procedure and the REST route it declares, and no other", async () => {
    expect(listedOperations.length).toBeGreaterThanOrEqual(10);
    for (const { name, operation } of listedOperations) {
      if (operation.trpc === false) expect(procedures[name], `${name} is REST only`).toBeUndefined();
      else expect(procedures[name]?._def.type, name).toBe(operation.kind);
      if (!operation.rest) continue;
      const route = restRouteOf(operation);
      expect(restRoutes, name).toContain(route);
      expect(`${route.method} ${route.path} ${route.operationId}`).toBe(`${operation.rest.method} ${operation.rest.path} ${operation.rest.operationId}`);
      // The route file under app/ serves this very definition.
      const folder = operation.rest.path.slice(1).replace(/\{([^}]+)\}/g, "[$1]");
      expect(routeDefinitionOf((await loadRouteModule(folder))[operation.rest.method]), name).toBe(route);
    }
  });

  it("documents the declared role as the route's 403, unless the face says it in its own words", () => {
    const forSchoolAdmins = listedOperations.filter(({ operation }) => operation.rest && operation.role === "school-admin");
    expect(forSchoolAdmins.length).toBeGreaterThan(0);
    for (const { operation } of forSchoolAdmins) {
      expect(restRouteOf(operation).errors[403]).toBe(operation.rest!.errors[403] ?? "The caller is not a school admin of their school");
    }
    const open = restRouteOf(thing({ role: "signed-in" }));
    expect(open.errors).toEqual({ 404: "Not found" });
  });

  it("takes path parameters, then the query (GET, DELETE) or the JSON body (the others) from the one input", () => {
    const names = fc.uniqueArray(fc.stringMatching(/^[a-z]{1,8}(_[a-z]{1,8})?$/), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(names, fc.nat(), fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE" as const), (members, cut, method) => {
        const inPath = members.slice(0, cut % (members.length + 1));
        const input = z.object(Object.fromEntries(members.map((member) => [member, z.string()])));
        const route = restRouteOf(
          thing({ input, kind: method === "GET" ? "query" : "mutation", rest: { ...face, method, path: `/api/things${inPath.map((name) => `/{${name}}`).join("")}` } }),
        );
        const others = members.filter((member) => !inPath.includes(member));
        expect(keysOf(route.params)).toEqual(inPath);
        const readsQuery = method === "GET" || method === "DELETE";
        expect(keysOf(route.query)).toEqual(readsQuery ? others : []);
        expect(keysOf(route.body?.kind === "json" ? route.body.schema : undefined)).toEqual(readsQuery ? [] : others);
        // Nothing taken from the path: the input itself is read and documented (its refinements too).
        if (inPath.length === 0 && others.length > 0) expect(readsQuery ? route.query : route.body?.kind === "json" && route.body.schema).toBe(input);
      }),
    );
  });

  it("takes the JSON body from one member of the input when the face says so (tRPC's { id, body })", () => {
    const body = z.object({ title: z.string(), marks: z.number() });
    const input = z.object({ thing_id: z.uuid(), body });
    const route = restRouteOf(thing({ input, kind: "mutation", rest: { ...face, method: "PUT", bodyMember: "body" } }));
    expect(keysOf(route.params)).toEqual(["thing_id"]);
    expect(route.query).toBeUndefined();
    expect(route.body?.kind === "json" && route.body.schema).toBe(body);
    const put = { ...face, method: "PUT" as const, bodyMember: "body" };
    expect(() => restRouteOf(thing({ input: z.object({ thing_id: z.uuid() }), kind: "mutation", rest: put }))).toThrow("the body's body is not a member of the input");
    expect(() => restRouteOf(thing({ input: input.extend({ extra: z.string() }), kind: "mutation", rest: put }))).toThrow("the input's extra is neither in the path nor the body's body");
    expect(() => restRouteOf(thing({ input, rest: { ...face, bodyMember: "body" } }))).toThrow("a GET has no body for the input's body");
  });

  it("documents a path parameter in the route's words when the face says them, leaving the input (tRPC's) as it is", () => {
    const input = z.object({ group_id: z.uuid().describe("Group id"), thing_id: z.uuid().describe("Thing id") });
    const path = "/api/groups/{group_id}/things/{thing_id}";
    const route = restRouteOf(thing({ input, rest: { ...face, path, pathDescriptions: { thing_id: "The thing's own id" } } }));
    const params = (route.params as z.ZodObject).shape;
    expect(Object.keys(params)).toEqual(["group_id", "thing_id"]);
    expect(z.toJSONSchema(route.params as z.ZodObject)).toMatchObject({
      properties: { group_id: { format: "uuid", description: "Group id" }, thing_id: { format: "uuid", description: "The thing's own id" } },
    });
    expect(input.shape.thing_id.description).toBe("Thing id");
    // The schema parses as the input's does.
    expect(() => (params.thing_id as z.ZodType).parse("not a uuid")).toThrow();
    expect(() => restRouteOf(thing({ input, rest: { ...face, path, pathDescriptions: { other_id: "Other" } } }))).toThrow(
      `GET ${path}: {other_id} is described but not in the path`,
    );
  });

  it("refuses, when the catalogue is read, a REST face that cannot be derived, saying what is wrong", () => {
    expect(() => restRouteOf(thing({ rest: { ...face, path: "/api/things/{other_id}" } }))).toThrow("GET /api/things/{other_id}: the path's {other_id} is not a member of the input");
    expect(() => restRouteOf(thing({ kind: "mutation" }))).toThrow("a query is a GET and a GET a query");
    expect(() => restRouteOf(thing({ temporaryPassword: true }))).toThrow("REST refuses a temporary password");
    expect(() => restRouteOf(thing({ role: "staff" }))).toThrow("say the 403 of a caller without the role staff");
    expect(() => restRouteOf(thing({ output: undefined }))).toThrow("a JSON reply needs the operation's output schema");
    const file = { kind: "file" as const, contentType: "text/csv", description: "a CSV", schema: { type: "string" } };
    expect(() => restRouteOf(thing({ rest: { ...face, file } }))).toThrow("a file reply needs respond()");
    expect(() => restRouteOf(thing({ rest: undefined }))).toThrow("has no REST face");
    expect(() => restRouteOf(thing({ input: z.object({ thing_id: z.uuid() }).optional() }))).toThrow("a REST face needs an object input");
  });

  it("says a streamed body, several replies, a cached reply and deferred authentication as the hand-written routes said them", () => {
    const upload = streamedBody("text/csv", { type: "string" });
    const input = z.object({ thing_id: z.uuid(), dry_run: z.string().optional() });
    const post = { ...faceOfReplies, method: "POST" as const, streamedBody: upload, replies: { 200: "Previewed", 201: "Written" }, respond: (result: unknown) => replyWith(201, result) };
    const streamed = restRouteOf(thing({ kind: "mutation", trpc: false, input, rest: post }));
    // The body is the request's own, unread; the input's other members come from the query string.
    expect(streamed.body).toBe(upload);
    expect(keysOf(streamed.params)).toEqual(["thing_id"]);
    expect(keysOf(streamed.query)).toEqual(["dry_run"]);
    expect(Object.entries(streamed.replies).map(([status, reply]) => [status, (reply as { kind: string }).kind])).toEqual([
      ["200", "json"],
      ["201", "json"],
    ]);

    const cached = restRouteOf(thing({ rest: { ...face, cache: () => Promise.resolve({ sharing: null }) } }));
    expect((cached.replies as Record<number, { kind: string }>)[200]!.kind).toBe("cached-json");

    const authenticate = () => Promise.resolve({ id: "someone" });
    const deferred = restRouteOf(thing({ rest: { ...face, deferredAuthentication: { judgeFirst: () => undefined, authenticate } } }));
    expect(deferred.auth).toEqual({ deferred: authenticate });
    expect(restRouteOf(thing({})).auth).toBe("bearer");
  });

  it("refuses a face whose new options cannot hold together, saying what is wrong", () => {
    const upload = streamedBody("text/csv", { type: "string" });
    const post = { ...face, method: "POST" as const };
    expect(() => restRouteOf(thing({ kind: "mutation", rest: { ...post, streamedBody: upload } }))).toThrow("a streamed body reaches REST only; say trpc: false");
    expect(() => restRouteOf(thing({ kind: "mutation", trpc: false, rest: { ...post, streamedBody: upload, bodyMember: "body" } }))).toThrow("a POST has no body for the input's body");
    expect(() => restRouteOf(thing({ rest: { ...faceOfReplies, replies: { 200: "A", 201: "B" } } }))).toThrow("several replies need respond() to choose the status");
    expect(() => restRouteOf(thing({ rest: { ...face, replies: { 200: "A" }, status: 201, respond: (result) => replyWith(200, result) } }))).toThrow(
      "replies says every JSON reply; leave out status, reply, file and cache",
    );
    const cache = () => Promise.resolve({ sharing: null });
    expect(() => restRouteOf(thing({ kind: "mutation", rest: { ...post, cache } }))).toThrow("a cached reply is a GET's JSON");
    expect(() => restRouteOf(thing({ rest: { ...face, cache, respond: (result) => replyWith(200, result) } }))).toThrow("a cached reply is a GET's JSON");
  });
});

const face = { method: "GET" as const, path: "/api/things/{thing_id}", operationId: "getThing", tags: ["things"], summary: "A thing", reply: "The thing", errors: { 404: "Not found" } };
/** The face without its one reply's description, for a face that says several (`replies`). */
const { reply: _reply, ...faceOfReplies } = face;

/** A made-up operation (never in the catalogue), changed where a case says. */
function thing(changes: Partial<AnyOperation>): AnyOperation {
  return {
    ...defineOperation({
      kind: "query",
      input: z.object({ thing_id: z.uuid() }),
      output: z.object({ id: z.string() }),
      transaction: "as-user",
      role: "school-admin",
      handler: ({ input }) => Promise.resolve({ id: input.thing_id }),
      rest: face,
    }),
    ...changes,
  } as AnyOperation;
}

const keysOf = (schema: AnyRouteDefinition["params"]) => (schema ? Object.keys((schema as z.ZodObject).shape) : []);
