import crypto from "node:crypto";
import fc from "fast-check";
import { beforeAll, expect, it } from "vitest";
import { POST as resetPasswordRoute } from "../app/api/school/people/[user_id]/password/route";
import { GET as getPersonRoute, PATCH as editPersonRoute } from "../app/api/school/people/[user_id]/route";
import { GET as listPeopleRoute, POST as addPersonRoute } from "../app/api/school/people/route";
import { verifyCredentials } from "../server/sign-in/credentials";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";
import { fuzzSettings, hostileJsonToken, hostileString } from "./support/hostile-input";

type Route = (request: Request, context: { params: Promise<Record<string, string>> }) => Promise<Response>;

function call(route: Route, method: string, path: string, options: { token?: string; body?: unknown; userId?: string } = {}) {
  const headers: Record<string, string> = {};
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (options.body !== undefined) headers["content-type"] = "application/json";
  const body = options.body === undefined ? undefined : typeof options.body === "string" ? options.body : JSON.stringify(options.body);
  return route(new Request(`http://localhost${path}`, { method, headers, body }), { params: Promise.resolve<Record<string, string>>(options.userId ? { user_id: options.userId } : {}) });
}

const { seed, cases } = fuzzSettings(60);
const unique = () => crypto.randomBytes(4).toString("hex");

describeOnEachDatabase("people over REST", (database) => {
  let school: School;
  let otherSchool: School;

  beforeAll(async () => {
    school = await createSchool(database().db, "Restful");
    otherSchool = await createSchool(database().db, "Remote");
  });

  /** Every people operation aimed at one person (or the list when `userId` is not given). */
  const operations = (userId: string) => [
    { route: getPersonRoute as Route, method: "GET", path: `/api/school/people/${userId}`, userId },
    { route: editPersonRoute as Route, method: "PATCH", path: `/api/school/people/${userId}`, userId, body: { full_name: "Taken over" } },
    { route: resetPasswordRoute as Route, method: "POST", path: `/api/school/people/${userId}/password`, userId },
  ];

  it("adds, lists, reads, edits and resets a password as the school's admin", async () => {
    const email = `rest.${unique()}@example.org`;
    const added = await call(addPersonRoute, "POST", "/api/school/people", { token: school.admin.token, body: { full_name: "Rhea Rest", email, role: "teacher" } });
    expect(added.status).toBe(201);
    const person = await added.json();
    expect(person).toMatchObject({ full_name: "Rhea Rest", email, roles: ["teacher"], has_password: false, active: true });

    const list = await call(listPeopleRoute, "GET", "/api/school/people?search=rhea&role=teacher&status=active&limit=5&offset=0&class_id=", { token: school.admin.token });
    expect(list.status).toBe(200);
    expect(await list.json()).toMatchObject({ total: 1, people: [{ id: person.id }] });

    const read = await call(getPersonRoute, "GET", `/api/school/people/${person.id}`, { token: school.admin.token, userId: person.id });
    expect(await read.json()).toMatchObject({ id: person.id });

    const edited = await call(editPersonRoute, "PATCH", `/api/school/people/${person.id}`, {
      token: school.admin.token,
      userId: person.id,
      body: { display_name: "Rhea R.", role: "department_head", active: false },
    });
    expect(edited.status).toBe(200);
    expect(await edited.json()).toMatchObject({ display_name: "Rhea R.", roles: ["department_head"], active: false });

    const reset = await call(resetPasswordRoute, "POST", `/api/school/people/${person.id}/password`, { token: school.admin.token, userId: person.id });
    expect(reset.status).toBe(200);
    const { temporary_password } = await reset.json();
    expect(temporary_password.replaceAll("-", "").length).toBeGreaterThanOrEqual(12);
    // Deactivated: the temporary password does not sign in until they are active again.
    expect(await verifyCredentials(database().db, { email, password: temporary_password })).toBeNull();
    await call(editPersonRoute, "PATCH", `/api/school/people/${person.id}`, { token: school.admin.token, userId: person.id, body: { active: true } });
    expect(await verifyCredentials(database().db, { email, password: temporary_password })).toMatchObject({ id: person.id });
  });

  it("answers 401 without a token, 403 to a teacher, 404 to another school's admin", async () => {
    const anonymous = await call(listPeopleRoute, "GET", "/api/school/people");
    expect(anonymous.status).toBe(401);
    const teacherList = await call(listPeopleRoute, "GET", "/api/school/people", { token: school.teacher.token });
    expect(teacherList.status).toBe(403);
    expect(await teacherList.json()).toEqual({ detail: "Only a school admin manages people" });
    const teacherAdd = await call(addPersonRoute, "POST", "/api/school/people", {
      token: school.teacher.token,
      body: { full_name: "Sneaky", email: `sneaky.${unique()}@example.org`, role: "school_admin" },
    });
    expect(teacherAdd.status).toBe(403);

    for (const operation of operations(school.student.id)) {
      expect((await call(operation.route, operation.method, operation.path, { ...operation })).status, `${operation.method} ${operation.path}`).toBe(401);
      expect((await call(operation.route, operation.method, operation.path, { ...operation, token: school.teacher.token })).status).toBe(403);
      const outsider = await call(operation.route, operation.method, operation.path, { ...operation, token: otherSchool.admin.token });
      expect(outsider.status, `${operation.method} ${operation.path} by another school's admin`).toBe(404);
      expect(await outsider.json()).toEqual({ detail: "Person not found" });
    }
    const student = await call(getPersonRoute, "GET", `/api/school/people/${school.student.id}`, { token: school.admin.token, userId: school.student.id });
    expect(await student.json()).toMatchObject({ full_name: school.student.full_name, has_password: false });
  });

  it("refuses bad bodies and queries with a 400 that names the field", async () => {
    const bad = [
      { body: { full_name: "X", email: "nope", role: "student" }, field: /email/ },
      { body: { full_name: "X", email: `x.${unique()}@example.org`, role: "headmaster" }, field: /^Role: must be one of school admin, department head, teacher, student$/ },
      { body: { full_name: "", email: `x.${unique()}@example.org`, role: "student" }, field: /name/ },
      { body: "{not json", field: /JSON/i },
    ];
    for (const { body, field } of bad) {
      const response = await call(addPersonRoute, "POST", "/api/school/people", { token: school.admin.token, body });
      expect(response.status).toBe(400);
      expect((await response.json()).detail).toMatch(field);
    }
    for (const query of ["limit=0", "limit=201", "limit=ten", "offset=-1", "role=janitor", "status=asleep", "class_id=nope"]) {
      const response = await call(listPeopleRoute, "GET", `/api/school/people?${query}`, { token: school.admin.token });
      expect(response.status, query).toBe(400);
      expect((await response.json()).detail).toEqual(expect.any(String));
    }
  });

  it("answers hostile generated input with a 400 and changes nobody", async () => {
    const target = school.otherStudent;
    const before = await (await call(getPersonRoute, "GET", `/api/school/people/${target.id}`, { token: school.admin.token, userId: target.id })).json();
    const fields = ["full_name", "display_name", "email", "year_group", "role", "active"] as const;
    const samples = fc.sample(
      fc.record({ field: fc.constantFrom(...fields), text: hostileString, token: hostileJsonToken, raw: fc.boolean() }),
      { seed, numRuns: cases },
    );
    for (const { field, text, token, raw } of samples) {
      // Either a hostile JSON token in the field's place (which may not even be JSON) or a hostile string value.
      const body = raw ? `{"${field}": ${token}}` : JSON.stringify({ [field]: text });
      const response = await call(editPersonRoute, "PATCH", `/api/school/people/${target.id}`, { token: school.admin.token, userId: target.id, body });
      expect(response.status, `${body.slice(0, 80)}`).toBeLessThan(500);
      if (response.status >= 400) {
        expect(response.status, body.slice(0, 80)).toBe(400);
        expect((await response.json()).detail).toEqual(expect.any(String));
      }
      if (response.status === 200) {
        // A string that is valid for the field (a plain name, say): put the person back.
        await call(editPersonRoute, "PATCH", `/api/school/people/${target.id}`, {
          token: school.admin.token,
          userId: target.id,
          body: { full_name: before.full_name, display_name: before.display_name, email: before.email, year_group: before.year_group, role: "student", active: true },
        });
      }
    }
    const after = await (await call(getPersonRoute, "GET", `/api/school/people/${target.id}`, { token: school.admin.token, userId: target.id })).json();
    expect(after).toEqual(before);
  }, 120_000);
});
