import { z } from "zod";
import { myProfileOutput } from "../../identity/bootstrap-profile";
import { getBootstrapProfile, listMyMemberships } from "../../identity/users";
import { chooseOwnPasswordThrottled, choosePasswordInput } from "../../auth/password-change";
import { passwordChoosingProcedure, router, userProcedure } from "../init";

export const meRouter = router({
  /** The bootstrap profile (as GET /me/bootstrap) plus the caller's memberships, in one transaction. */
  profile: userProcedure.output(myProfileOutput).query(({ ctx }) =>
    ctx.asUser(async (tx) => ({
      ...(await getBootstrapProfile(tx, ctx.user.id)),
      memberships: await listMyMemberships(tx, ctx.user.id),
    })),
  ),

  /** The caller chooses their own password (after an admin gave them a temporary one); guesses of the current one are throttled. */
  choosePassword: passwordChoosingProcedure
    .input(choosePasswordInput)
    .output(z.object({ changed: z.literal(true) }))
    .mutation(({ ctx, input }) => chooseOwnPasswordThrottled(ctx.db, ctx.user.id, input)),
});
