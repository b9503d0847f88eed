import type { Role, ShellProfile } from "@/components/shell/profile";
import { isSchoolAdmin, isStaff, isTimetableManager } from "@/lib/rules/roles";

export interface SchoolRoles {
  /** School admins and department heads: they manage timetables (as the server's rule says). */
  canManageTimetables: boolean;
  /** School admins: they create and rename classes and enrol students. */
  isSchoolAdmin: boolean;
  /** Teachers, heads and admins: templates, batches and classes are theirs; a student has a timetable and settings. */
  isStaff: boolean;
  /** A student of the school and nothing more. */
  isStudent: boolean;
}

/** Where the signed-in user starts: staff at their templates, everyone else at their timetable. */
export const landingPath = (profile: Pick<ShellProfile, "school_id" | "memberships">) => (schoolRoles(profile).isStaff ? "/templates" : "/timetables");

/** What the signed-in user may change at their school; the server enforces the same rules. */
export function schoolRoles(profile: Pick<ShellProfile, "school_id" | "memberships">): SchoolRoles {
  const roles: Role[] = profile.memberships.filter((membership) => membership.institute_id === profile.school_id).map((membership) => membership.role);
  // Staff anywhere counts, as the server's rule for creating templates and batches counts any membership.
  const staff = isStaff(profile.memberships.map((membership) => membership.role));
  return {
    canManageTimetables: isTimetableManager(roles),
    isSchoolAdmin: isSchoolAdmin(roles),
    isStaff: staff,
    isStudent: roles.includes("student") && !staff,
  };
}
