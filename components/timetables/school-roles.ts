import type { Role, ShellProfile } from "@/components/shell/profile";
import { isSchoolAdmin, isTimetableManager } from "@/server/identity/roles";

export interface SchoolRoles {
  /** School admins and department heads: they manage timetables (as the server's rule says). */
  canManageTimetables: boolean;
  /** School admins: they create and rename classes and enrol students. */
  isSchoolAdmin: boolean;
}

/** What the signed-in user may change at their school; the server enforces the same rules. */
export function schoolRoles(profile: Pick<ShellProfile, "school_id" | "memberships">): SchoolRoles {
  const roles: Role[] = profile.memberships.filter((membership) => membership.institute_id === profile.school_id).map((membership) => membership.role);
  return { canManageTimetables: isTimetableManager(roles), isSchoolAdmin: isSchoolAdmin(roles) };
}
