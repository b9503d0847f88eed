import { z } from "zod";
import {
  createApiKey,
  createApiKeyInput,
  listApiKeys,
  requireSpeechKeyAdmin,
  revokeApiKey,
  revokeApiKeyInput,
  speechKeyInstitute,
} from "../../identity/api-keys";
import { dictationKeyOutput, issueDictationKey } from "../../speech/dictation-keys";
import { router, userProcedure } from "../init";

const apiKeySummary = z.object({
  id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  institute_id: z.uuid(),
  /** Null when the admin who made it was since deleted. */
  created_by_name: z.string().nullable(),
  created_at: z.date(),
  last_used_at: z.date().nullable(),
  revoked_at: z.date().nullable(),
});

const instituteIdInput = z.uuid("institute_id must be an institute id").optional();

/**
 * The speech service as the web app uses it: a short-lived key for dictation, and the school admins'
 * API keys, which belong to their institute (row-level security shows and revokes only those).
 */
export const speechRouter = router({
  /** A dictation key for the signed-in user (the browser opens /v1/websocket with it; it expires in minutes). */
  dictationKey: userProcedure.output(dictationKeyOutput).mutation(({ ctx }) => issueDictationKey({ userId: ctx.user.id })),

  apiKeys: router({
    /** The keys of the institutes the caller administers, or of the one named. */
    list: userProcedure
      .input(z.object({ institute_id: instituteIdInput }).optional())
      .output(z.array(apiKeySummary))
      .query(({ ctx, input }) =>
        ctx.asUser(async (tx) => {
          if (input?.institute_id) await speechKeyInstitute(tx, input.institute_id);
          else await requireSpeechKeyAdmin(tx);
          return (await listApiKeys(tx, { instituteId: input?.institute_id })).map((key) => ({ ...key, institute_id: key.institute_id! }));
        }),
      ),
    /** The key itself is in this reply only: it is stored hashed. institute_id: required for an admin of several. */
    create: userProcedure
      .input(createApiKeyInput.pick({ name: true }).extend({ institute_id: instituteIdInput }))
      .output(z.object({ id: z.uuid(), name: z.string(), prefix: z.string(), institute_id: z.uuid(), created_at: z.date(), key: z.string() }))
      .mutation(({ ctx, input }) =>
        ctx.asUser(async (tx) => {
          const instituteId = await speechKeyInstitute(tx, input.institute_id);
          const created = await createApiKey(tx, { name: input.name, createdBy: ctx.user.id, instituteId });
          return { ...created, institute_id: instituteId };
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
