import { beforeAll, expect, it } from "vitest";
import { GET as getTemplateRoute } from "../app/api/exam/templates/[template_id]/route";
import { GET as classStudentsRoute } from "../app/database/timetable/classes/[class_id]/students/route";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";

// One answer for one mistake: an id that cannot name any record is "not found", on REST (404) and
// through tRPC (NOT_FOUND) alike; an id that refers to another record from a body stays a 400.
describeOnEachDatabase("a malformed id", (database) => {
  let school: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });
  const get = (route: (request: Request, context: never) => Promise<Response>, path: string, params: object) =>
    route(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${school.admin.token}` } }), {
      params: Promise.resolve(params),
    } as never);

  beforeAll(async () => {
    school = await createSchool(database().db, "Malformed ids");
  });

  it("is NOT_FOUND through tRPC, as it is 404 on REST", async () => {
    expect((await get(getTemplateRoute, "/api/exam/templates/not-a-uuid", { template_id: "not-a-uuid" })).status).toBe(404);
    await expect(as(school.teacher).exam.templates.get({ template_id: "not-a-uuid" })).rejects.toMatchObject({ code: "NOT_FOUND", message: "Template not found" });
    await expect(as(school.admin).timetables.get({ id: "not-a-uuid" })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(as(school.admin).classes.students({ classId: "not-a-uuid" })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("is 404 for a class's students on REST, as for the exam paths", async () => {
    const response = await get(classStudentsRoute, "/database/timetable/classes/not-a-uuid/students", { class_id: "not-a-uuid" });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ detail: "Class not found" });
  });

  it("stays a 400 naming the field when the id refers to another record", async () => {
    await expect(as(school.teacher).exam.batches.create({ template_id: "not-a-uuid" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });
});
