import type { Role } from "../identity/users";

/**
 * What a visitor needs to know about the demo school, without the seeding code (no pdf-lib, no
 * writes): safe to import from pages, e.g. to show the demo logins on the sign-in page.
 */
export const DEMO_INSTITUTE_NAME = "Northfield Academy";
/** The password of every demo account. Published on purpose: demo data is never seeded by default in production. */
export const DEMO_PASSWORD = "markbook-demo";
/** The account whose presence means "the demo school was seeded". */
export const DEMO_MARKER_EMAIL = "admin@northfield.example";

export interface DemoLogin {
  email: string;
  fullName: string;
  roles: Role[];
}

export const demoStaff: DemoLogin[] = [
  { email: DEMO_MARKER_EMAIL, fullName: "Helen Carter", roles: ["school_admin"] },
  { email: "head@northfield.example", fullName: "David Okafor", roles: ["department_head", "teacher"] },
  { email: "teacher@northfield.example", fullName: "Sarah Mitchell", roles: ["teacher"] },
  { email: "teacher2@northfield.example", fullName: "James Patel", roles: ["teacher"] },
];

/** The logins to show people: the staff, and one student of the 60 (student01 … student60). */
export const demoLogins: DemoLogin[] = [
  ...demoStaff,
  { email: "student01@northfield.example", fullName: "Amelia Hughes", roles: ["student"] },
];

// Set by the server once the demo school exists in its database; a slot on globalThis because the
// Next.js bundles load their own copy of this module.
const slot = globalThis as typeof globalThis & { __markbookDemoSchoolId?: string };

export function rememberDemoSchool(instituteId: string): void {
  slot.__markbookDemoSchoolId = instituteId;
}

/** The demo school's institute id when this server seeded or found it at start, else null. */
export function demoSchoolId(): string | null {
  return slot.__markbookDemoSchoolId ?? null;
}
