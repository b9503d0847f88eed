import { z } from "zod";
import {
  createPersonalAccessToken,
  createPersonalAccessTokenInput,
  listPersonalAccessTokens,
  revokePersonalAccessToken,
  revokePersonalAccessTokenInput,
} from "../../identity/personal-tokens";
import { router, userProcedure } from "../init";

const tokenSummary = z.object({
  id: z.uuid(),
  name: z.string(),
  created_at: z.date(),
  expires_at: z.date(),
  revoked_at: z.date().nullable(),
});

/** Personal access tokens of the caller: the token itself is shown once, by `create`. */
export const tokensRouter = router({
  list: userProcedure
    .output(z.array(tokenSummary))
    .query(({ ctx }) => ctx.asUser((tx) => listPersonalAccessTokens(tx, ctx.user.id))),

  create: userProcedure
    .input(createPersonalAccessTokenInput)
    .output(z.object({ id: z.uuid(), name: z.string(), expires_at: z.date(), token: z.string() }))
    .mutation(({ ctx, input }) => ctx.asUser((tx) => createPersonalAccessToken(tx, ctx.user.id, input))),

  revoke: userProcedure
    .input(revokePersonalAccessTokenInput)
    .output(z.object({ id: z.uuid(), revoked_at: z.date() }))
    .mutation(({ ctx, input }) => ctx.asUser((tx) => revokePersonalAccessToken(tx, ctx.user.id, input))),
});
