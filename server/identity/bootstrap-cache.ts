import type { Db } from "../db/client";
import { readCallerState } from "../db/reply-cache-state";
import type { CacheRule } from "../operations/define";

/**
 * GET /me/bootstrap through the reply cache (server/http/reply-cache.ts): per user, valid while their own
 * row and their school's row are unchanged.
 */
export async function bootstrapProfileCache(db: Db, userId: string): Promise<CacheRule> {
  const state = await readCallerState(db, userId);
  const school = state?.institutes.find((institute) => institute.id === state.school_id);
  const sharing = state && {
    key: JSON.stringify(["bootstrap", userId]),
    // Whether the school is one of the caller's (its row is visible to them) is part of the version.
    version: `${state.user_version ?? "0"}/${school ? (school.version ?? "0") : "-"}`,
  };
  return { sharing };
}
