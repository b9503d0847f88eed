import { expect, test } from "@playwright/test";
import fc from "fast-check";
import { signIn } from "./helpers";

test("the API answers a path it does not have with a JSON 404, a method a path does not have with a JSON 405, and still routes the rest", async ({ request }) => {
  for (const [method, path] of [
    ["GET", "/api/exam/papers"],
    ["POST", "/api/nope/x"],
    ["DELETE", "/database/nope"],
    ["GET", "/graph/x/y/z"],
    ["PUT", "/api/exam/templates/abc/unknown"],
  ] as const) {
    const response = await request.fetch(path, { method });
    expect(response.status(), `${method} ${path}`).toBe(404);
    expect(response.headers()["content-type"]).toMatch(/^application\/json/);
    expect(await response.json()).toEqual({ detail: `Nothing at ${path}: /api/openapi.json lists the API's paths` });
  }
  for (const [method, path, allow] of [
    ["DELETE", "/api/exam/templates", "GET, POST"],
    ["PATCH", "/database/timetable/classes/00000000-0000-4000-8000-000000000000/students", "GET, POST"],
  ] as const) {
    const response = await request.fetch(path, { method, data: method === "PATCH" ? { student_id: "x" } : undefined });
    expect(response.status(), `${method} ${path}`).toBe(405);
    expect(response.headers()["allow"]).toBe(allow);
    expect(await response.json()).toEqual({ detail: `${method} is not an operation of ${path}: it answers ${allow}` });
  }
  // The catch-alls come after every route file: real paths are unchanged.
  expect((await request.get("/api/openapi.json")).status()).toBe(200);
  const unauthenticated = await request.get("/api/exam/templates", { headers: { cookie: "" } });
  expect(unauthenticated.status()).toBe(401);
  expect((await request.get("/api/auth/session")).status()).toBe(200);
});

test("a REST path with malformed percent-encoding is a 400 with a {detail}, signed in or not, every method; a tRPC query's URL is bounded", async ({ page, request }) => {
  await signIn(page);
  const escape = fc.constantFrom("%", "%zz", "%g1", "%ff", "%80", "%c3", "%e2%82", "%ed%a0%80", "%c0%af");
  const path = fc
    .tuple(fc.constantFrom("/api/exam/batches", "/api/exam/templates", "/api/trpc", "/api/auth", "/database/timetable/classes", "/graph/node", "/me", "/sync", "/get_canvas_node_file"), escape, fc.constantFrom("", "/queue", "/x/y"))
    .map(([start, bad, end]) => `${start}/a${bad}~${end}`);
  const cases = fc.sample(fc.tuple(path, fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE")), { seed: 32, numRuns: 40 });
  cases.unshift(["/api/exam/batches/%ff/queue", "GET"]);
  for (const [index, [malformed, method]] of cases.entries()) {
    // Alternately as the signed-in teacher (the page's session) and with no session at all.
    const client = index % 2 === 0 ? page.request : request;
    const response = await client.fetch(malformed, { method, data: method === "GET" ? undefined : {} });
    expect(response.status(), `${method} ${malformed}`).toBe(400);
    expect(response.headers()["content-type"]).toMatch(/^application\/json/);
    const { detail } = (await response.json()) as { detail: string };
    expect(detail).toMatch(/^The path \/\S+ is not valid: ".+" is not a percent-encoded character/);
  }
  // A tRPC query carries its input in the URL: Node's limit on a request's head (16 KiB) bounds it.
  const input = encodeURIComponent(JSON.stringify({ 0: { json: { text: "x".repeat(64 * 1024) } } }));
  const batched = await request.get(`/api/trpc/exam.templates.list,exam.templates.list?batch=1&input=${input}`);
  expect(batched.status()).toBe(431);
});
