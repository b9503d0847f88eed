import { z } from "zod";
import { defineOperation } from "../operations/define";
import { readSnapshotAs, snapshotLocationInput, storeSnapshotOutput, writeSnapshotAs } from "./snapshots";
import { issueSyncToken, issueSyncTokenInput, syncTokenOutput } from "./sync-tokens";

/**
 * Canvas snapshots and sync tokens for the web app (`snapshots.<name>` over tRPC), the same rules as
 * the REST paths. Those REST routes (server/classroom/routes/canvas.ts) stay hand-written: their
 * contract judges the path before the token (deferred authentication) and the snapshot's write streams
 * its body, neither of which an operation's REST face says yet.
 */
export const snapshotOperations = {
  get: defineOperation({
    kind: "query",
    input: snapshotLocationInput,
    output: z.object({ snapshot: z.record(z.string(), z.unknown()), source: z.enum(["stored", "default"]) }),
    // Access is judged in a transaction as the caller; the object store is read after it has ended.
    transaction: "database",
    role: "signed-in",
    handler: ({ db, caller, input }) => readSnapshotAs(db, caller.id, input),
  }),

  put: defineOperation({
    kind: "mutation",
    input: snapshotLocationInput.extend({ snapshot: z.unknown() }),
    output: storeSnapshotOutput,
    transaction: "database",
    role: "signed-in",
    handler: ({ db, caller, input }) => writeSnapshotAs(db, caller.id, input, input.snapshot),
  }),

  syncToken: defineOperation({
    kind: "mutation",
    input: issueSyncTokenInput,
    output: syncTokenOutput,
    transaction: "as-user",
    role: "signed-in",
    handler: ({ tx, caller, input }) => issueSyncToken(tx, caller.id, input),
  }),
};
