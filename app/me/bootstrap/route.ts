import { asUser } from "@/server/db/rls";
import { bootstrapProfileOutput } from "@/server/identity/bootstrap-profile";
import { getBootstrapProfile } from "@/server/identity/users";
import { restRoute } from "@/server/http/rest";

export const dynamic = "force-dynamic";

/** GET /me/bootstrap: the caller's profile, exactly the contract's bootstrap fields. */
export const GET = restRoute(async ({ db, user }) => {
  const profile = await asUser(db, user.id, (tx) => getBootstrapProfile(tx, user.id));
  // safeParse: a reply that breaks its own schema is our bug (500), not the client's (400).
  const reply = bootstrapProfileOutput.safeParse(profile);
  if (!reply.success) throw new Error(`GET /me/bootstrap reply does not match its schema: ${reply.error.message}`);
  return reply.data;
});
