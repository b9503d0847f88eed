import { myProfileOutput } from "../../identity/bootstrap-profile";
import { getBootstrapProfile, listMyMemberships } from "../../identity/users";
import { router, userProcedure } from "../init";

export const meRouter = router({
  /** The bootstrap profile (as GET /me/bootstrap) plus the caller's memberships, in one transaction. */
  profile: userProcedure.output(myProfileOutput).query(({ ctx }) =>
    ctx.asUser(async (tx) => ({
      ...(await getBootstrapProfile(tx, ctx.user.id)),
      memberships: await listMyMemberships(tx, ctx.user.id),
    })),
  ),
});
