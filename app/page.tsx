import { redirect } from "next/navigation";
import { landingPath } from "@/components/shell/school-roles";
import { requireSignedInProfile } from "./(app)/signed-in";

export const dynamic = "force-dynamic";

/** The front door: staff start at their templates, students at their timetable; signed out, sign-in. */
export default async function HomePage() {
  redirect(landingPath(await requireSignedInProfile()));
}
