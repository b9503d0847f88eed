import { z } from "zod";
import {
  loadSnapshot,
  resolveSnapshotAccess,
  snapshotLocationInput,
  storeSnapshot,
  storeSnapshotOutput,
} from "../../classroom/snapshots";
import { issueSyncToken, issueSyncTokenInput, syncTokenOutput } from "../../classroom/sync-tokens";
import { router, userProcedure } from "../init";

/** Canvas snapshots and sync tokens for the web app (same rules as the REST paths). */
export const snapshotsRouter = router({
  get: userProcedure
    .input(snapshotLocationInput)
    .output(z.object({ snapshot: z.record(z.string(), z.unknown()), source: z.enum(["stored", "default"]) }))
    .query(async ({ ctx, input }) => {
      const address = await ctx.asUser((tx) => resolveSnapshotAccess(tx, ctx.user.id, input, "read"));
      return loadSnapshot(address);
    }),

  put: userProcedure
    .input(snapshotLocationInput.extend({ snapshot: z.unknown() }))
    .output(storeSnapshotOutput)
    .mutation(async ({ ctx, input }) => {
      const address = await ctx.asUser((tx) => resolveSnapshotAccess(tx, ctx.user.id, input, "write"));
      return storeSnapshot(address, new TextEncoder().encode(JSON.stringify(input.snapshot) ?? ""));
    }),

  syncToken: userProcedure
    .input(issueSyncTokenInput)
    .output(syncTokenOutput)
    .mutation(({ ctx, input }) => ctx.asUser((tx) => issueSyncToken(tx, ctx.user.id, input))),
});
