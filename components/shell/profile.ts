import type { Role } from "@/lib/rules/roles";

/** The signed-in user as the shell shows them (a subset of `me.profile`). */
export interface ShellProfile {
  full_name: string;
  display_name: string;
  email: string;
  school_id: string | null;
  memberships: ReadonlyArray<{ institute_id: string; institute_name: string; role: Role }>;
}

export type { Role };

export const roleLabels: Record<Role, string> = {
  school_admin: "School admin",
  department_head: "Department head",
  teacher: "Teacher",
  student: "Student",
};

const rank: Record<Role, number> = { school_admin: 0, department_head: 1, teacher: 2, student: 3 };

/** The user's school: the institute named by school_id, else the first membership's. */
export function schoolName(profile: ShellProfile): string | null {
  const membership =
    profile.memberships.find((m) => m.institute_id === profile.school_id) ?? profile.memberships[0];
  return membership?.institute_name ?? null;
}

/** Role labels at the user's school, most senior first, without duplicates. */
export function roleNames(profile: ShellProfile): string[] {
  const atSchool = profile.memberships.filter((m) => !profile.school_id || m.institute_id === profile.school_id);
  const roles = [...new Set((atSchool.length ? atSchool : profile.memberships).map((m) => m.role))];
  return roles.sort((a, b) => rank[a] - rank[b]).map((role) => roleLabels[role]);
}
