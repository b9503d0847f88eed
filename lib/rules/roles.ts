/**
 * The roles of an institute membership and the groups the rules speak of, said once: the domain
 * functions ask these, and asUser (server/db/rls.ts) hands the same groups to the row-level security
 * policies as the caller's scope, so a policy and a domain rule cannot disagree about who is staff.
 * Free of imports, so the browser's components use the same groups as the server.
 */

/** The membership_role enum of the database (server/db/schema/identity.ts is built from this list). */
export const roles = ["school_admin", "department_head", "teacher", "student"] as const;
export type Role = (typeof roles)[number];

/** The staff of an institute: every role but student. They may teach a class, create templates and upload papers. */
export const staffRoles: readonly Role[] = ["school_admin", "department_head", "teacher"];
/** Who administers a school: its classes, enrollments and speech API keys. */
export const schoolAdminRoles: readonly Role[] = ["school_admin"];
/** Who may manage timetables: the roles the timetable listing and the RLS write policy name. */
export const timetableManagerRoles: readonly Role[] = ["school_admin", "department_head"];

export const isStaff = (held: readonly Role[]) => held.some((role) => staffRoles.includes(role));
export const isSchoolAdmin = (held: readonly Role[]) => held.some((role) => schoolAdminRoles.includes(role));
export const isTimetableManager = (held: readonly Role[]) => held.some((role) => timetableManagerRoles.includes(role));
