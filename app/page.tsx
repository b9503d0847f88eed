import { redirect } from "next/navigation";
import { getSessionUserId } from "@/server/auth/session";

export const dynamic = "force-dynamic";

/** The front door: the signed-in area when there is a session, sign-in otherwise. */
export default async function HomePage() {
  redirect((await getSessionUserId()) ? "/templates" : "/signin");
}
