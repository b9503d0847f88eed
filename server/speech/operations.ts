import { z } from "zod";
import { createApiKeyInput, createSchoolApiKey, listSchoolApiKeys, revokeApiKeyInput, revokeSchoolApiKey } from "../identity/api-keys";
import { defineOperation } from "../operations/define";
import { dictationKeyOutput, issueDictationKey } from "./dictation-keys";
import { dictationStatus, dictationStatusOutput, serviceStatusOutput, speechServiceStatus } from "./status";

/**
 * The speech service as the web app uses it (`speech.<name>` over tRPC): a short-lived key for
 * dictation, the service's state, and the school admins' API keys (`speech.apiKeys.<name>`), which
 * belong to their institute (row-level security shows and revokes only those). /v1 is the speech
 * service's own edge (server/speech/http.ts), not operations of this catalogue.
 */
export const speechOperations = {
  /** A dictation key for the signed-in user (the browser opens /v1/websocket with it; it expires in minutes). */
  dictationKey: defineOperation({
    kind: "mutation",
    output: dictationKeyOutput,
    // Signed, not stored: no transaction is opened.
    transaction: "database",
    role: "signed-in",
    handler: ({ caller }) => issueDictationKey({ userId: caller.id }),
  }),

  /** Whether dictation can work on this server, and if not a sentence for the teacher (the marking screen's button). */
  dictationStatus: defineOperation({
    kind: "query",
    output: dictationStatusOutput,
    transaction: "database",
    role: "signed-in",
    handler: () => dictationStatus(),
  }),

  /** The speech service's state for a school admin's Settings (the server's, not a school's). */
  serviceStatus: defineOperation({
    kind: "query",
    output: serviceStatusOutput,
    // The caller is judged in a transaction of its own; the service is assessed after it.
    transaction: "database",
    role: "school-admin",
    handler: ({ db, caller }) => speechServiceStatus(db, caller.id),
  }),
};

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

/** The speech service's API keys of a school admin's institutes (`speech.apiKeys.<name>`). */
export const speechApiKeyOperations = {
  /** The keys of the institutes the caller administers, or of the one named. */
  list: defineOperation({
    kind: "query",
    input: z.object({ institute_id: instituteIdInput }).optional(),
    output: z.array(apiKeySummary),
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, input }) => listSchoolApiKeys(tx, input),
  }),

  /** The key itself is in this reply only: it is stored hashed. institute_id: required for an admin of several. */
  create: defineOperation({
    kind: "mutation",
    input: createApiKeyInput.pick({ name: true }).extend({ institute_id: instituteIdInput }),
    output: z.object({ id: z.uuid(), name: z.string(), prefix: z.string(), institute_id: z.uuid(), created_at: z.date(), key: z.string() }),
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, caller, input }) => createSchoolApiKey(tx, caller.id, input),
  }),

  revoke: defineOperation({
    kind: "mutation",
    input: revokeApiKeyInput,
    output: z.object({ id: z.uuid(), revoked_at: z.date().nullable() }),
    transaction: "as-user",
    role: "school-admin",
    handler: ({ tx, input }) => revokeSchoolApiKey(tx, input),
  }),
};
