import { beforeAll, expect, it } from "vitest";
import { asService } from "../server/db/rls";
import { instituteMemberships } from "../server/db/schema";
import { createUser } from "../server/identity/users";
import { createCaller } from "../server/trpc/root";
import { describeOnEachDatabase } from "./support/database";
import { type School, createSchool } from "./support/fixtures";

describeOnEachDatabase("classes.schoolStaff (the teacher choices of the admin UI)", (database) => {
  let school: School;
  let otherSchool: School;
  const as = (user: { id: string }) => createCaller({ db: database().db, user: { id: user.id } });

  beforeAll(async () => {
    school = await createSchool(database().db, "Staffed");
    otherSchool = await createSchool(database().db, "Elsewhere");
  });

  it("lists the school's admins, heads and teachers by full name, without students or other schools", async () => {
    const expected = [school.admin, school.otherTeacher, school.head, school.teacher]
      .map((person) => person.id)
      .sort();
    for (const person of [school.admin, school.head, school.teacher, school.student]) {
      const { staff } = await as(person).classes.schoolStaff();
      expect(staff.map((member) => member.id).sort()).toEqual(expected);
      const names = staff.map((member) => member.full_name);
      expect(names).toEqual([...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
      expect(staff.find((member) => member.id === school.teacher.id)).toEqual({
        id: school.teacher.id,
        full_name: school.teacher.full_name,
        display_name: school.teacher.display_name,
        email: school.teacher.email,
      });
    }
    const theirs = await as(otherSchool.admin).classes.schoolStaff();
    expect(theirs.staff.map((member) => member.id)).not.toContain(school.teacher.id);
  });

  it("lists a member of staff with several roles once", async () => {
    await asService(database().db, (tx) =>
      tx.insert(instituteMemberships).values({ institute_id: school.institute.id, user_id: school.head.id, role: "teacher" }),
    );
    const { staff } = await as(school.admin).classes.schoolStaff();
    expect(staff.filter((member) => member.id === school.head.id)).toHaveLength(1);
  });

  it("is empty for a user without a school", async () => {
    const loner = await asService(database().db, (tx) =>
      createUser(tx, { email: `loner.${crypto.randomUUID()}@example.org`, fullName: "Lone Ranger" }),
    );
    expect(await as(loner).classes.schoolStaff()).toEqual({ staff: [] });
  });
});
