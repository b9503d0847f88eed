import type { SignInFormProps } from "@/components/auth/SignInForm";
import { DEMO_PASSWORD, demoLogins, demoSchoolId } from "@/server/demo/school";
import type { Role } from "@/server/identity/users";

const roleNames: Record<Role, string> = {
  school_admin: "School admin",
  department_head: "Head of department",
  teacher: "Teacher",
  student: "Student",
};

/**
 * The demo accounts to show on the sign-in page, or null. Shown only when this server seeded (or found)
 * the demo school at start: never on a production installation without demo data.
 */
export function demoLoginsIfSeeded(): SignInFormProps["demo"] {
  if (!demoSchoolId()) return null;
  return {
    password: DEMO_PASSWORD,
    logins: demoLogins.map((login) => ({ email: login.email, role: roleNames[login.roles[0]!] })),
    note: "Students student01 to student60 use the same password.",
  };
}
