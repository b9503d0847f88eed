import { beforeAll, expect, it, vi } from "vitest";
import { z } from "zod";
import { AppError } from "../server/errors";
import { buildOpenApiDocument } from "../server/composition/openapi-document";
import { defineRoute, jsonBody, jsonReply, nextRoute, queryValues, recordPath, replyWith } from "../server/http/route";
import { logger } from "../server/logger";
import { describeOnEachDatabase } from "./support/database";
import { callRest } from "./support/exam-fixtures";
import { type School, createSchool } from "./support/fixtures";

/** What the route machinery (server/http/route.ts) does for every REST route, shown on routes made for the test. */

const echo = defineRoute({
  method: "POST",
  path: "/test/things/{thing_id}",
  operationId: "echoThing",
  tags: ["test"],
  summary: "Echoes what the route parsed",
  auth: "bearer",
  params: recordPath("thing_id", "Thing"),
  query: z.object({ colour: z.enum(["red", "blue"]).optional(), size: z.coerce.number().int().optional() }),
  body: jsonBody(z.object({ name: z.string().min(1) }), { example: '{"name": "…"}' }),
  replies: { 200: jsonReply(z.object({ thing_id: z.string(), colour: z.string().nullable(), size: z.number().nullable(), name: z.string(), caller: z.string() }), "Echo") },
  errors: { 400: "Bad input", 404: "No such thing" },
  handler: async ({ params, query, body, user }) => ({ thing_id: params.thing_id, colour: query.colour ?? null, size: query.size ?? null, name: body.name, caller: user.id }),
});

const twoStatuses = defineRoute({
  method: "POST",
  path: "/test/made",
  operationId: "makeThing",
  tags: ["test"],
  summary: "Answers 201 when asked to create, 200 otherwise, and breaks its schema when asked to",
  auth: "bearer",
  query: z.object({ create: z.string().optional(), broken: z.string().optional(), undeclared: z.string().optional() }),
  replies: { 200: jsonReply(z.object({ made: z.literal(false) }), "Found"), 201: jsonReply(z.object({ made: z.literal(true) }), "Made") },
  errors: {},
  handler: async ({ query }) => {
    if (query.broken) return { made: "perhaps" } as never;
    if (query.undeclared) return new Response("teapot", { status: 418 });
    return query.create ? replyWith(201, { made: true }, { "x-made": "yes" }) : { made: false as const };
  },
});

const deferred = defineRoute({
  method: "GET",
  path: "/test/deferred",
  operationId: "deferredThing",
  tags: ["test"],
  summary: "Judges its input before it authenticates",
  auth: { deferred: async () => { throw new AppError("forbidden", "No token for this route"); } },
  query: z.object({ path: z.string("path is required") }),
  replies: { 200: jsonReply(z.object({ ok: z.boolean() }), "OK") },
  errors: { 400: "Bad input", 403: "No token" },
  handler: async ({ query, authenticate }) => {
    if (query.path === "bad") throw new AppError("invalid", "path is bad");
    await authenticate();
    return { ok: true };
  },
});

describeOnEachDatabase("one route definition, answered by nextRoute", (database) => {
  let school: School;
  const thing = "6f1c2a52-8f6b-4d39-9a7e-0b3c2d1e4f5a";

  beforeAll(async () => {
    school = await createSchool(database().db, "Route");
  });

  const post = (route: ReturnType<typeof nextRoute>, path: string, options: { token?: string; body?: unknown; params?: Record<string, string> } = {}) =>
    callRest(route, { method: "POST", path, ...options });

  it("authenticates first, then parses path, query and body with the definition's schemas, and checks the reply", async () => {
    const route = nextRoute(echo);
    const ok = await post(route, `/test/things/${thing.toUpperCase()}?colour=red&size=3&size=4&ignored=1`, {
      token: school.teacher.token,
      params: { thing_id: thing.toUpperCase() },
      body: { name: "Box" },
    });
    expect(ok.status).toBe(200);
    // The path id is lowercased by recordId; of a parameter given twice the last counts.
    expect(await ok.json()).toEqual({ thing_id: thing, colour: "red", size: 4, name: "Box", caller: school.teacher.id });

    // Without a credential nothing else is judged: 401, even for a body that is not JSON.
    const anonymous = await post(route, `/test/things/${thing}`, { params: { thing_id: thing }, body: "{not json" });
    expect(anonymous.status).toBe(401);

    const badBody = await post(route, `/test/things/${thing}`, { token: school.teacher.token, params: { thing_id: thing }, body: "{not json" });
    expect(badBody.status).toBe(400);
    expect((await badBody.json()).detail).toContain('{"name": "…"}');
    const badQuery = await post(route, `/test/things/${thing}?colour=green`, { token: school.teacher.token, params: { thing_id: thing }, body: { name: "Box" } });
    expect(badQuery.status).toBe(400);
    expect((await badQuery.json()).detail).toBe("Colour: must be one of: red, blue");
    const badId = await post(route, "/test/things/nope", { token: school.teacher.token, params: { thing_id: "nope" }, body: { name: "Box" } });
    expect(badId.status).toBe(404);
    expect(await badId.json()).toEqual({ detail: "Thing not found" });
  });

  it("reads a parameter given with nothing after it as absent", async () => {
    expect(queryValues(new URL("http://x/?a=&b=1&b=&c=2&c=3"))).toEqual({ c: "3" });
    const route = nextRoute(echo);
    const response = await post(route, `/test/things/${thing}?colour=`, { token: school.teacher.token, params: { thing_id: thing }, body: { name: "Box" } });
    expect(response.status).toBe(200);
    expect((await response.json()).colour).toBeNull();
  });

  it("answers the first declared reply by default, another declared status with replyWith, and a Response as it is", async () => {
    const route = nextRoute(twoStatuses);
    const found = await post(route, "/test/made", { token: school.teacher.token });
    expect([found.status, await found.json()]).toEqual([200, { made: false }]);
    const made = await post(route, "/test/made?create=1", { token: school.teacher.token });
    expect([made.status, made.headers.get("x-made"), await made.json()]).toEqual([201, "yes", { made: true }]);
    const raw = await post(route, "/test/made?undeclared=1", { token: school.teacher.token });
    expect([raw.status, await raw.text()]).toEqual([418, "teapot"]);
  });

  it("answers a reply that breaks its schema with a logged 500, never the client's 400", async () => {
    const logged = vi.spyOn(logger, "error").mockImplementation(() => {});
    try {
      const broken = await post(nextRoute(twoStatuses), "/test/made?broken=1", { token: school.teacher.token });
      expect(broken.status).toBe(500);
      expect(await broken.json()).toEqual({ detail: "Internal server error" });
      expect(logged).toHaveBeenCalledWith("unexpected error", expect.objectContaining({ name: "ReplySchemaError" }));
    } finally {
      logged.mockRestore();
    }
  });

  it("lets a route with deferred authentication judge its input first", async () => {
    const route = nextRoute(deferred);
    const missing = await callRest(route, { path: "/test/deferred" });
    expect([missing.status, (await missing.json()).detail]).toEqual([400, "Path: required"]);
    const bad = await callRest(route, { path: "/test/deferred?path=bad" });
    expect([bad.status, (await bad.json()).detail]).toEqual([400, "path is bad"]);
    const good = await callRest(route, { path: "/test/deferred?path=fine" });
    expect([good.status, (await good.json()).detail]).toEqual([403, "No token for this route"]);
  });

  it("documents each definition as its OpenAPI operation: parameters, body, replies and every error status with 401", () => {
    const document = buildOpenApiDocument([echo, twoStatuses, deferred]) as unknown as {
      paths: Record<string, Record<string, { parameters: { name: string; in: string; required: boolean }[]; requestBody?: unknown; responses: Record<string, unknown> }>>;
    };
    const operation = document.paths["/test/things/{thing_id}"]!.post!;
    expect(operation.parameters.map(({ name, in: where, required }) => [name, where, required])).toEqual([
      ["thing_id", "path", true],
      ["colour", "query", false],
      ["size", "query", false],
    ]);
    expect(operation.requestBody).toMatchObject({ required: true, content: { "application/json": { schema: { required: ["name"] } } } });
    expect(Object.keys(operation.responses)).toEqual(["200", "400", "401", "404"]);
    expect(Object.keys(document.paths["/test/made"]!.post!.responses)).toEqual(["200", "201", "401"]);
    expect(Object.keys(document.paths["/test/deferred"]!.get!.responses)).toEqual(["200", "400", "401", "403"]);
  });
});
