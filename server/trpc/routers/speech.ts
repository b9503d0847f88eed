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
import { SPEECH_MODEL_IDS } from "../../speech/config";
import { dictationKeyOutput, issueDictationKey } from "../../speech/dictation-keys";
import { assessSpeech } from "../../speech/readiness";
import { getSpeechService } from "../../speech/service";
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

const dictationStatus = z.object({ available: z.boolean(), reason: z.string().nullable() });

const modelId = z.enum(SPEECH_MODEL_IDS);

const serviceStatus = z.object({
  status: z.enum(["healthy", "unhealthy"]),
  /** Some model can serve (GET /v1/health/ready's 200). */
  ready: z.boolean(),
  /** Why it is unhealthy, for whoever runs the server: folders and settings. */
  reasons: z.array(z.string()),
  default_model: modelId,
  dictation: dictationStatus,
  models: z.array(z.object({ id: modelId, status: z.enum(["healthy", "unhealthy"]), source: z.string(), from: z.enum(["disk", "download"]).nullable(), reason: z.string().nullable() })),
});

const instituteIdInput = z.uuid("institute_id must be an institute id").optional();

/**
 * The speech service as the web app uses it: a short-lived key for dictation, and the school admins'
 * API keys, which belong to their institute (row-level security shows and revokes only those).
 */
export const speechRouter = router({
  /** A dictation key for the signed-in user (the browser opens /v1/websocket with it; it expires in minutes). */
  dictationKey: userProcedure.output(dictationKeyOutput).mutation(({ ctx }) => issueDictationKey({ userId: ctx.user.id })),

  /** Whether dictation can work on this server, and if not a sentence for the teacher (the marking screen's button). */
  dictationStatus: userProcedure.output(dictationStatus).query(async () => {
    const { dictation } = await assessSpeech(getSpeechService());
    return dictation.available ? { available: true, reason: null } : { available: false, reason: dictation.reason };
  }),

  /** The speech service's state for a school admin's Settings: what works, and why not (the server's, not a school's). */
  serviceStatus: userProcedure.output(serviceStatus).query(async ({ ctx }) => {
    await ctx.asUser((tx) => requireSpeechKeyAdmin(tx, "sees the speech service's state"));
    const state = await assessSpeech(getSpeechService());
    return {
      status: state.status,
      ready: state.ready,
      reasons: state.reasons,
      default_model: state.defaultModel,
      dictation: state.dictation.available ? { available: true, reason: null } : { available: false, reason: state.dictation.reason },
      models: SPEECH_MODEL_IDS.map((id) => ({ id, status: state.models[id].status, source: state.models[id].source, from: state.models[id].from, reason: state.models[id].reason ?? null })),
    };
  }),

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
