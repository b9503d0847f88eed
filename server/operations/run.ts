import type { AuthenticatedUser } from "../auth/authenticated-user";
import type { Db } from "../db/client";
import { asUser } from "../db/rls";
import type { StreamedRequestBody } from "../http/route";
import type { AnyOperation } from "./define";

/**
 * Runs an operation's handler for a caller its edge (REST or tRPC) has authenticated: in a transaction
 * under row-level security as them (`as-user`), or with the database (`database`). Both edges call this,
 * so the transaction an operation gets is decided here only.
 */
export function runOperation(operation: AnyOperation, db: Db, caller: AuthenticatedUser, input: unknown, request?: { upload: StreamedRequestBody }): Promise<unknown> {
  if (operation.transaction === "as-user") return asUser(db, caller.id, (tx) => operation.handler({ tx, caller, input, ...request }));
  return operation.handler({ db, caller, input, ...request });
}
