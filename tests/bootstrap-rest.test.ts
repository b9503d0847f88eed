import { beforeAll, expect, it } from "vitest";
import { GET } from "../app/me/bootstrap/route";
import { signUserToken } from "../server/auth/tokens";
import { asService } from "../server/db/rls";
import { createUser } from "../server/identity/users";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";

const bootstrapFields = [
  "id",
  "email",
  "user_type",
  "username",
  "full_name",
  "display_name",
  "user_db_name",
  "school_db_name",
  "school_id",
];

async function bootstrap(token: string) {
  return GET(new Request("http://localhost/me/bootstrap", { headers: { authorization: `Bearer ${token}` } }));
}

describeOnEachDatabase("GET /me/bootstrap", (database) => {
  let school: School;
  let otherSchool: School;

  beforeAll(async () => {
    school = await createSchool(database().db, "Bootstrap");
    otherSchool = await createSchool(database().db, "Elsewhere");
  });

  it("returns exactly the contract's profile fields of the caller, with their school", async () => {
    const response = await bootstrap(school.teacher.token);
    expect(response.status).toBe(200);
    const profile = await response.json();
    expect(Object.keys(profile).sort()).toEqual([...bootstrapFields].sort());
    expect(profile).toEqual({
      id: school.teacher.id,
      email: school.teacher.email,
      user_type: "teacher",
      username: school.teacher.username,
      full_name: school.teacher.full_name,
      display_name: school.teacher.display_name,
      user_db_name: school.teacher.user_db_name,
      school_db_name: school.institute.graph_db_name,
      school_id: school.institute.id,
    });
    expect(profile).not.toHaveProperty("password_hash");
  });

  it("answers each caller with their own profile and school", async () => {
    const profile = await (await bootstrap(otherSchool.student.token)).json();
    expect(profile.id).toBe(otherSchool.student.id);
    expect(profile.user_type).toBe("student");
    expect(profile.school_id).toBe(otherSchool.institute.id);
    expect(profile.school_db_name).toBe(otherSchool.institute.graph_db_name);
  });

  it("gives a user without any school their profile with school_id null", async () => {
    const loner = await asService(database().db, (tx) =>
      createUser(tx, { email: `loner.${crypto.randomUUID()}@example.org`, fullName: "Lone Ranger" }),
    );
    const response = await bootstrap(await signUserToken({ userId: loner.id, ttlSeconds: 600 }));
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({ id: loner.id, display_name: "Lone", school_id: null, school_db_name: null });
  });
});
