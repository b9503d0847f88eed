import crypto from "node:crypto";
import { signUserToken } from "../../server/auth/tokens";
import type { Db } from "../../server/db/client";
import { asService } from "../../server/db/rls";
import { createInstitute } from "../../server/identity/institutes";
import { type Role, createUser } from "../../server/identity/users";

/** A school with one person per role, each with a valid user token. Names are unique per call. */
export async function createSchool(db: Db, name = "School") {
  const tag = crypto.randomBytes(4).toString("hex");
  return asService(db, async (tx) => {
    const institute = await createInstitute(tx, { name: `${name} ${tag}` });
    const person = async (role: Role, label: string) => {
      const user = await createUser(tx, {
        email: `${label}.${tag}@example.org`,
        fullName: `${label[0]!.toUpperCase()}${label.slice(1)} ${name}`,
        instituteId: institute.id,
        role,
      });
      return { ...user, token: await signUserToken({ userId: user.id, ttlSeconds: 600 }) };
    };
    return {
      institute,
      admin: await person("school_admin", "admin"),
      head: await person("department_head", "head"),
      teacher: await person("teacher", "teacher"),
      otherTeacher: await person("teacher", "colleague"),
      student: await person("student", "student"),
      otherStudent: await person("student", "classmate"),
    };
  });
}

export type School = Awaited<ReturnType<typeof createSchool>>;
