import { authenticateRequest } from "../auth/authenticate";
import { getDatabase } from "../db/client";
import { toTRPCError } from "../errors";
import type { Context } from "./init";

/** Who is calling (authenticateRequest); `user` is null for a caller without credentials, refused by userProcedure. */
export async function createContext({ headers }: { headers: Headers }): Promise<Context> {
  const { db } = await getDatabase();
  try {
    return { db, user: await authenticateRequest(db, headers) };
  } catch (error) {
    throw toTRPCError(error);
  }
}
