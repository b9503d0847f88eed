import { expect, test } from "@playwright/test";

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
