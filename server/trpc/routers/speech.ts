import { z } from "zod";
import {
  createApiKey,
  createApiKeyInput,
  listApiKeys,
  requireSpeechKeyAdmin,
  revokeApiKey,
  revokeApiKeyInput,
} from "../../identity/api-keys";
import { dictationKeyOutput, issueDictationKey } from "../../speech/dictation-keys";
import { router, userProcedure } from "../init";

const apiKeySummary = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  created_at: z.date(),
  last_used_at: z.date().nullable(),
  revoked_at: z.date().nullable(),
});

/** The speech service as the web app uses it: a short-lived key for dictation, and the admins' API keys. */
export const speechRouter = router({
  /** A dictation key for the signed-in user (the browser opens /v1/websocket with it; it expires in minutes). */
  dictationKey: userProcedure.output(dictationKeyOutput).mutation(({ ctx }) => issueDictationKey({ userId: ctx.user.id })),

  apiKeys: router({
    list: userProcedure.output(z.array(apiKeySummary)).query(({ ctx }) =>
      ctx.asUser(async (tx) => {
        await requireSpeechKeyAdmin(tx);
        return listApiKeys(tx);
      }),
    ),
    /** The key itself is in this reply only: it is stored hashed. */
    create: userProcedure
      .input(createApiKeyInput.pick({ name: true }))
      .output(z.object({ id: z.uuid(), name: z.string(), prefix: z.string(), created_at: z.date(), key: z.string() }))
      .mutation(({ ctx, input }) =>
        ctx.asUser(async (tx) => {
          await requireSpeechKeyAdmin(tx);
          return createApiKey(tx, { name: input.name, createdBy: ctx.user.id });
        }),
      ),
    revoke: userProcedure
      .input(revokeApiKeyInput)
      .output(z.object({ id: z.uuid(), revoked_at: z.date().nullable() }))
      .mutation(({ ctx, input }) =>
        ctx.asUser(async (tx) => {
          await requireSpeechKeyAdmin(tx);
          return revokeApiKey(tx, input);
        }),
      ),
  }),
});
